import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
// @ts-expect-error - plain ESM helpers shared with npm start
import { startWorkerDev } from "../../scripts/worker-dev.mjs";
// @ts-expect-error - plain ESM helper
import { freePort } from "../../scripts/process-group.mjs";

// Settings reach `wrangler dev` in a file only this user can read, never on a command line, where every
// user of the machine reads them in `ps` (ADR 111). Every local entry point (npm start, the e2e layer,
// the bench) starts wrangler through startWorkerDev, so its processes are read here as `ps` shows them.

const ROOT = path.resolve(__dirname, "../..");
const persistTo = path.join(ROOT, ".wrangler", `e2e-settings-file-${process.pid}`);
/** A secret as an owner would give one (an Airtable token, a Sheets key). */
const SECRET = `patSecretToken${Date.now()}abcdef0123456789`;
/** A value with both usual quotes and a `$`, which the file must carry unchanged. */
const SITE_NAME = `Lou's "quoted" site $HOME \\$x`;

let site: { url: string; pid: number; stop: () => Promise<void> };
let processes: Array<{ pid: string; commandLine: string }>;

beforeAll(async () => {
  rmSync(persistTo, { recursive: true, force: true });
  mkdirSync(persistTo, { recursive: true });
  // No migrations (a minute's blocking call on a loaded machine): ready once a static file is served;
  // every page's header (a 404's too) shows the site's name without reading D1.
  site = await startWorkerDev({
    port: await freePort(),
    persistTo,
    readyPath: "/favicon.svg",
    log: "pipe",
    bindings: {
      TURNSTILE_SITE_KEY: "1x00000000000000000000AA",
      TURNSTILE_SECRET_KEY: "1x0000000000000000000000000000000AA",
      TURNSTILE_VERIFY_URL: `${inject("standinOrigin")}/turnstile/v0/siteverify`,
      SESSION_SECRET: SECRET,
      AIRTABLE_TOKEN: SECRET,
      SITE_NAME,
    },
  });
  // Every process of wrangler's group (wrangler, its workerd children), each command line as ps reads it.
  processes = execFileSync("pgrep", ["-g", String(site.pid)], { encoding: "utf8" })
    .trim()
    .split("\n")
    .map((pid) => ({ pid, commandLine: readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ") }));
}, 180_000);

afterAll(async () => {
  await site?.stop();
  rmSync(persistTo, { recursive: true, force: true });
});

/** The settings file wrangler was told to read. */
function settingsFile(): string {
  const leader = processes.find((p) => p.pid === String(site.pid))!;
  return /--env-file (\S+)/.exec(leader.commandLine)![1];
}

describe("settings handed to wrangler dev", () => {
  it("are on no command line of wrangler or its workerd children", () => {
    expect(processes.length).toBeGreaterThanOrEqual(2);
    expect(processes.some((p) => p.commandLine.includes("workerd"))).toBe(true);
    for (const { commandLine } of processes) {
      expect(commandLine).not.toContain(SECRET);
      expect(commandLine).not.toContain("--var");
    }
  });

  it("are in a file only this user can read, in a folder of its own", () => {
    const file = settingsFile();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    expect(statSync(file).uid).toBe(process.getuid!());
    expect(readFileSync(file, "utf8")).toContain(SECRET);
  });

  it("reach the Worker unchanged, quotes and $ included", async () => {
    const response = await fetch(`${site.url}/no-page-here`);
    expect(response.status).toBe(404);
    const html = await response.text();
    const name = /<a href="\/" class="site-name">[\s\S]*?<span>([^<]*)<\/span>/.exec(html)![1];
    const text = name.replaceAll("&quot;", '"').replaceAll("&#x27;", "'").replaceAll("&amp;", "&");
    expect(text).toBe(SITE_NAME);
  });

  it("leave no file behind once wrangler is stopped", async () => {
    const file = settingsFile();
    await site.stop();
    expect(existsSync(file)).toBe(false);
    expect(existsSync(path.dirname(file))).toBe(false);
  });
});
