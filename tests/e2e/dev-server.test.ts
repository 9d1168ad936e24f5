import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
// @ts-expect-error - plain ESM helpers shared with npm start
import { freePort, spawnGroup } from "../../scripts/process-group.mjs";
// @ts-expect-error - plain ESM helper shared with npm start
import { waitUntilServing } from "../../scripts/worker-dev.mjs";
import { standinToken } from "../../dev/standin-token";

// `npm run dev` (scripts/dev.mjs: Vite's dev server, Remix rendering in Node from the builds the
// patches edit, patches/formats.ts) serves the pages and takes a submission. Its own process group, port and
// local state; the layer's Turnstile stand-in, as the Worker under test uses (global-setup.ts).

const ROOT = path.resolve(__dirname, "../..");
type Group = { stop(): Promise<void>; exited(): boolean; output(): string };

let origin: string;
let persistTo: string;
let dev: Group;

/** The environment of a person's shell: none of Vitest's own variables, which Vite would read as a test run. */
function shellEnv(): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("VITEST") && key !== "NODE_ENV"));
}

beforeAll(async () => {
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  mkdirSync(path.join(ROOT, ".wrangler"), { recursive: true });
  persistTo = mkdtempSync(path.join(ROOT, ".wrangler", "dev-server-"));
  const standin = inject("standinOrigin");
  dev = spawnGroup(
    process.execPath,
    ["scripts/dev.mjs", "--persist-to", persistTo, "--port", String(port), "--strictPort", "--host", "127.0.0.1"],
    {
      cwd: ROOT,
      env: {
        ...shellEnv(),
        TURNSTILE_VERIFY_URL: `${standin}/turnstile/v0/siteverify`,
        TURNSTILE_SCRIPT_URL: `${standin}/turnstile/v0/api.js`,
        // The stamp's minimum fill time is the accept path's to test; here the page is posted at once.
        FORM_MIN_FILL_SECONDS: "0",
      },
    },
  );
  await waitUntilServing(dev, `${origin}/healthz`, { timeoutMs: 150_000, name: "npm run dev" });
}, 180_000);

afterAll(async () => {
  await dev?.stop();
  rmSync(persistTo, { recursive: true, force: true });
});

const heading = (html: string) => /<h1[^>]*>([^<]*)<\/h1>/.exec(html)?.[1];
const hidden = (html: string, name: string) => new RegExp(`name="${name}"[^>]*value="([^"]*)"`).exec(html)?.[1] ?? "";

describe("npm run dev", () => {
  it.each([
    ["/", "Gatepost"],
    ["/f/contact", "Contact us"],
    ["/admin/login", "Operator sign-in"],
  ])("renders %s", async (page, title) => {
    const response = await fetch(`${origin}${page}`);
    const html = await response.text();
    expect([response.status, heading(html)], dev.output().slice(-2_000)).toEqual([200, title]);
  });

  it("accepts a submission from the contact page and shows its thank-you view", async () => {
    const page = await (await fetch(`${origin}/f/contact`)).text();
    const body = new URLSearchParams({
      _gp_ts: hidden(page, "_gp_ts"),
      _gp_sid: hidden(page, "_gp_sid"),
      name: "Ada Lovelace",
      email: "ada@example.org",
      message: "Sent through the dev server.",
      "cf-turnstile-response": standinToken({ hostname: "127.0.0.1" }),
    });
    const response = await fetch(`${origin}/f/contact`, { method: "POST", body, headers: { Origin: origin }, redirect: "manual" });
    expect(response.status, dev.output().slice(-2_000)).toBe(303);
    const thanks = response.headers.get("location") ?? "";
    expect(thanks).toMatch(/^\/f\/contact\/thanks\/[0-9a-f-]{36}$/);
    const view = await fetch(`${origin}${thanks}`);
    expect([view.status, heading(await view.text())]).toEqual([200, "Received"]);
  });
});
