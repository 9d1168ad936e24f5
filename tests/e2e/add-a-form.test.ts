import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { matchesDoc, readBlocks } from "./doc-snippets";
import { copyWorkingTree, removeScratch, startInScratch, type ScratchStart } from "./scratch-start";

// Adding a form is adding one file (docs/forms.md), checked as a new user would meet it: in a scratch
// copy of the repository, add docs/forms.md's example form as one new file, build once, run
// `npm run start:offline`, and see the form served, a post accepted, and its delivery reach the local
// sink after a failed first attempt (the Worker's scheduled run retries it). Nothing else is edited:
// no registry, list, test or script.

const FORMS_DOC = new URL("../../docs/forms.md", import.meta.url);
const LIMIT_MS = 420_000;
/** One start of the scratch copy: a build and wrangler, on a machine shared with the rest of the layer. */
const STARTUP_MS = 150_000;

let started: ScratchStart;
let scratch = "";

function blocks() {
  return readBlocks(FORMS_DOC);
}

/** Resolves once `pattern` appears in npm start's output (or rejects after `ms`). */
function waitForOutput(pattern: RegExp, ms: number): Promise<RegExpMatchArray> {
  return started.waitForOutput(pattern, ms);
}

beforeAll(async () => {
  scratch = copyWorkingTree("gatepost-add-a-form-");
  const form = blocks().find((b) => b.lang === "ts" && b.code.includes("defineForm({"));
  if (!form) throw new Error("docs/forms.md has no form definition to add");
  writeFileSync(path.join(scratch, "app/forms/feedback.ts"), `${form.code}\n`);
  // Playwright-free: this test posts like a backend would. No fill-time trap for API posts.
  started = await startInScratch(scratch, { ADMIN_PASSWORD: "scratch admin password" }, STARTUP_MS);
}, LIMIT_MS);

afterAll(async () => {
  await started?.stop();
  removeScratch(scratch);
}, 60_000);

describe("adding a form is one file", () => {
  it("is picked up by npm start, served, accepted and delivered to the local sink, with a retry", async () => {
    const site = (await waitForOutput(/Site +(http:\/\/\S+)/, 1_000))[1];
    const control = (await waitForOutput(/curl -X POST (http:\/\/\S+)\/mode/, 1_000))[1];
    const sinkPage = (await waitForOutput(/Sink page +(http:\/\/\S+)/, 1_000))[1];
    expect(started.output()).toContain(`${site}/f/feedback`);
    // The broken receiver is played on the sink itself, and the block names no settings.
    expect(new URL(control).origin).toBe(new URL(sinkPage).origin);
    expect(started.output()).not.toMatch(/[A-Z]+_WEBHOOK_URL/);

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
    expect(started.child()?.exitCode).toBeNull();
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
      if (started.child()!.exitCode !== null) resolve(started.child()!.exitCode);
      else started.child()!.once("exit", (exitCode) => resolve(exitCode));
    });
    expect(code).toBe(1);
    expect(started.output()).toMatch(/wrangler dev stopped unexpectedly .*: the site is down/);
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
