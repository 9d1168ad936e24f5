import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error - plain ESM helper
import { freePort } from "../../scripts/process-group.mjs";
import { matchesDoc, readBlocks } from "./doc-snippets";

// Adding a form is adding one file (docs/forms.md), checked as a new user would meet it: in a scratch
// copy of the repository, add docs/forms.md's example form as one new file, build once, run
// `npm run start:offline`, and see the form served, a post accepted, and its delivery reach the local
// sink after a failed first attempt (the Worker's scheduled run retries it). Nothing else is edited:
// no registry, list, test or script.

const ROOT = path.resolve(__dirname, "../..");
const FORMS_DOC = new URL("../../docs/forms.md", import.meta.url);
const LIMIT_MS = 420_000;
/** One start of the scratch copy: a build and wrangler, on a machine shared with the rest of the layer. */
const STARTUP_MS = 150_000;

let scratch = "";
let start: ChildProcess | undefined;
let output = "";

function blocks() {
  return readBlocks(FORMS_DOC);
}

/** The end of the scratch start's full log (wrangler's own output), so a failed start says why. */
function logTail(): string {
  const file = path.join(scratch, ".wrangler/logs/npm-start.log");
  if (!existsSync(file)) return "";
  return `\n--- last lines of ${file} ---\n${readFileSync(file, "utf8").split("\n").slice(-60).join("\n")}`;
}

/** Starts `npm run start:offline` in the scratch copy on a port free at this moment. */
async function startScratch(): Promise<void> {
  output = "";
  const port = await freePort();
  start = spawn(process.execPath, ["scripts/start.mjs", "--offline"], {
    cwd: scratch,
    detached: true,
    // Playwright-free: this test posts like a backend would. No fill-time trap for API posts.
    env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", ADMIN_PASSWORD: "scratch admin password" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  start.stdout?.on("data", (chunk) => (output += chunk));
  start.stderr?.on("data", (chunk) => (output += chunk));
  await waitForOutput(/Stop +Ctrl-C/, STARTUP_MS);
}

/** Resolves once `pattern` appears in npm start's output (or rejects after `ms`). */
async function waitForOutput(pattern: RegExp, ms: number): Promise<RegExpMatchArray> {
  const deadline = Date.now() + ms;
  for (;;) {
    const match = pattern.exec(output);
    if (match) return match;
    if (start?.exitCode !== null && start?.exitCode !== undefined) throw new Error(`npm start exited:\n${output}${logTail()}`);
    if (Date.now() > deadline) throw new Error(`no ${pattern} within ${ms} ms:\n${output}${logTail()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

beforeAll(async () => {
  // A copy of the working tree as git sees it (tracked and new files), sharing node_modules.
  scratch = mkdtempSync(path.join(tmpdir(), "gatepost-add-a-form-"));
  const files = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "-z"], { cwd: ROOT, encoding: "utf8" })
    .split("\0")
    .filter(Boolean);
  for (const file of files) {
    mkdirSync(path.dirname(path.join(scratch, file)), { recursive: true });
    try {
      cpSync(path.join(ROOT, file), path.join(scratch, file));
    } catch {
      // a file deleted in the working tree but not yet in the index
    }
  }
  symlinkSync(path.join(ROOT, "node_modules"), path.join(scratch, "node_modules"));

  const form = blocks().find((b) => b.lang === "ts" && b.code.includes("defineForm({"));
  if (!form) throw new Error("docs/forms.md has no form definition to add");
  writeFileSync(path.join(scratch, "app/forms/feedback.ts"), `${form.code}\n`);

  // The port is free when picked, but another run on this machine can take it before wrangler binds
  // it; only that case is started once more, on a new port. Any other failure fails the test.
  try {
    await startScratch();
  } catch (error) {
    if (!/EADDRINUSE|address already in use/i.test(`${error}`)) throw error;
    try {
      process.kill(-start!.pid!, "SIGKILL");
    } catch {
      // the first start's group has ended already
    }
    await startScratch();
  }
}, LIMIT_MS);

afterAll(async () => {
  if (start?.pid && start.exitCode === null) {
    process.kill(-start.pid, "SIGINT");
    await new Promise((r) => {
      const timer = setTimeout(() => {
        try {
          process.kill(-start!.pid!, "SIGKILL");
        } catch {
          // the group already ended
        }
        r(null);
      }, 20_000);
      start!.once("exit", () => (clearTimeout(timer), r(null)));
    });
  }
  if (scratch) rmSync(scratch, { recursive: true, force: true });
}, 60_000);

describe("adding a form is one file", () => {
  it("is picked up by npm start, served, accepted and delivered to the local sink, with a retry", async () => {
    const site = (await waitForOutput(/Site +(http:\/\/\S+)/, 1_000))[1];
    const control = (await waitForOutput(/curl -X POST (http:\/\/\S+)\/mode/, 1_000))[1];
    expect(output).toContain(`${site}/f/feedback`);
    expect(output).toMatch(/receives .*FEEDBACK_WEBHOOK_URL/);

    const page = await fetch(`${site}/f/feedback`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("How did we do?");

    // The first delivery fails once; the scheduled run's retry must then reach the sink.
    const broken = await fetch(`${control}/mode`, { method: "POST", body: JSON.stringify({ mode: "http500", times: 1 }) });
    expect(broken.ok).toBe(true);

    // docs/forms.md's own curl example, against this server.
    const example = blocks().find((b) => b.lang === "sh" && b.code.includes("/api/forms/feedback/submissions"))!;
    const command = example.code.replaceAll("http://localhost:8788", site).replace(/TOKEN-(\d+)/g, `TOKEN-$1-${Date.now()}`);
    const answer = execFileSync("sh", ["-c", command], { encoding: "utf8", timeout: 30_000, stdio: ["ignore", "pipe", "pipe"] });
    const documented = JSON.parse(/# (\{.*\})/.exec(example.code)![1]);
    const body = JSON.parse(answer);
    expect(matchesDoc(documented, body), answer).toBe(true);

    const id = body.id as string;
    await waitForOutput(new RegExp(`✖ \\S+ answered 500`), 30_000);
    const delivered = await waitForOutput(new RegExp(`✔ \\S+ signature OK · \\S+ form=feedback submission=${id}`), 120_000);
    expect(delivered[0]).toContain(id);
    // A scheduled run sent that retry: its report follows the delivery once its run ends.
    await waitForOutput(/\[outbox drain\] \{"claimed":[1-9]/, 30_000);
  }, 240_000);

  it("drops a post whose body stops short of its Content-Length and keeps serving", async () => {
    const site = new URL((await waitForOutput(/Site +(http:\/\/\S+)/, 1_000))[1]);
    for (const path of ["/f/feedback", "/api/forms/feedback/submissions"]) {
      await new Promise<void>((resolve) => {
        const socket = connect(Number(site.port), site.hostname, () => {
          socket.write(
            `POST ${path} HTTP/1.1\r\nHost: ${site.host}\r\nOrigin: ${site.origin}\r\n` +
              "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\nemail=cut",
          );
          setTimeout(() => (socket.destroy(), resolve()), 300);
        });
        socket.on("error", () => resolve());
      });
    }
    expect((await fetch(`${site.origin}/healthz`)).status).toBe(200);
    expect(start?.exitCode).toBeNull();
  });

  it("keeps running the cron after the Worker reloads", async () => {
    const log = path.join(scratch, ".wrangler/logs/npm-start.log");
    const runs = () => (readFileSync(log, "utf8").match(/^\{"maintenance"/gm) ?? []).length;
    const reloads = () => (readFileSync(log, "utf8").match(/Local server updated and ready/g) ?? []).length;
    const before = reloads();
    // An edit wrangler dev watches: it rebuilds and restarts the Worker on the same port.
    const entry = path.join(scratch, "functions/index.ts");
    writeFileSync(entry, `${readFileSync(entry, "utf8")}// touched by the test\n`);
    await expect.poll(reloads, { timeout: 60_000, interval: 500 }).toBeGreaterThan(before);
    const afterReload = runs();
    // The next scheduled run (every 15 s under npm start) reaches the reloaded Worker.
    await expect.poll(runs, { timeout: 45_000, interval: 1_000 }).toBeGreaterThan(afterReload);
  }, 120_000);

  it("says so and exits non-zero when the Worker's process dies under it", async () => {
    const port = new URL((await waitForOutput(/Site +(http:\/\/\S+)/, 1_000))[1]).port;
    const pid = execFileSync("pgrep", ["-f", `wrangler.js dev --ip 127.0.0.1 --port ${port} `], { encoding: "utf8" })
      .trim()
      .split("\n")[0];
    process.kill(-Number(pid), "SIGKILL");
    const code = await new Promise<number | null>((resolve) => {
      if (start!.exitCode !== null) resolve(start!.exitCode);
      else start!.once("exit", (exitCode) => resolve(exitCode));
    });
    expect(code).toBe(1);
    expect(output).toMatch(/wrangler dev stopped unexpectedly .*: the site is down/);
  });

  it("names only settings that follow the form's convention in its deploy steps", () => {
    const deploy = blocks().find((b) => b.lang === "sh" && b.code.includes("secret put"))!;
    const names = [...deploy.code.matchAll(/secret put (\S+)/g)].map((m) => m[1]);
    expect(names.length).toBeGreaterThan(0);
    expect(
      names.every((name) => /^FEEDBACK_(WEBHOOK_URL|WEBHOOK_SECRET)$/.test(name)),
      names.join(", "),
    ).toBe(true);
    // One Worker holds every setting: one place to put each secret, one deploy.
    expect(deploy.code).not.toMatch(/pages|-c /);
    expect(deploy.code).toContain("npm run deploy");
  });
});
