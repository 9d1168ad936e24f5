import { execFileSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
// @ts-ignore - a plain .mjs script
import { EDITS, MARKER, PROXY_WORKER, patchWranglerProxyWorker } from "../../scripts/patch-wrangler-proxy.mjs";

// wrangler 4.72's dev proxy parks a GET that lost its keep-alive connection (ADR 008). The fix is a
// patch applied by `npm install`; these tests fail when it stops applying (a wrangler upgrade) or
// when it would break the proxy's code.

const dir = mkdtempSync(path.join(tmpdir(), "gp-proxy-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const edits = EDITS as Array<[string, string]>;

describe("patch-wrangler-proxy", () => {
  it("is applied to the installed wrangler, and the patched proxy still parses", () => {
    const source = readFileSync(PROXY_WORKER, "utf8");
    expect(source.includes(MARKER), "run `node scripts/patch-wrangler-proxy.mjs` (npm install runs it)").toBe(true);
    const copy = path.join(dir, "ProxyWorker.mjs");
    copyFileSync(PROXY_WORKER, copy);
    expect(() => execFileSync(process.execPath, ["--check", copy], { stdio: "pipe" })).not.toThrow();
  });

  it("patches the code it fixes once, and leaves anything else alone", () => {
    const file = path.join(dir, "fixture.js");
    const original = `before\n${edits.map(([from]) => from).join("middle\n")}after\n`;
    writeFileSync(file, original);
    expect(patchWranglerProxyWorker(file)).toBe("patched");
    const patched = readFileSync(file, "utf8");
    expect(patched).toContain("userWorkerUrl.origin === newUserWorkerUrl?.origin");
    expect(patched).toContain("this.processQueue();");
    expect(patched.startsWith("before\n") && patched.endsWith("after\n")).toBe(true);
    expect(patchWranglerProxyWorker(file)).toBe("already");
    expect(readFileSync(file, "utf8")).toBe(patched);

    writeFileSync(file, "a newer wrangler's proxy\n");
    expect(patchWranglerProxyWorker(file)).toBe("not-applicable");
    expect(readFileSync(file, "utf8")).toBe("a newer wrangler's proxy\n");
  });
});
