import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, inject, it } from "vitest";
import { WAIT, useBrowserPage } from "./browser-page";
import { matchesDoc, parseCurlOutput, parseJsonRun, readBlocks, shellExamples, type CodeBlock, type ShellExample } from "./doc-snippets";

// Every example in docs/api.md runs here against the app with the Turnstile stand-in, and what comes
// back is held to what the doc shows, so the docs cannot drift from the code. docs/forms.md's form
// definition is the form tests/e2e/add-a-form.test.ts adds. The doc's own host (localhost:8788) and
// its example hosts are swapped for the test servers; TOKEN-n becomes a token unique to this run.

const API = new URL("../../docs/api.md", import.meta.url);
const RUN = Date.now().toString(36);

let page: Page;
let errors: string[];
useBrowserPage((p, e) => {
  [page, errors] = [p, e];
});

function run(example: ShellExample): string {
  const code = example.code.replaceAll("http://localhost:8788", inject("baseUrl")).replace(/TOKEN-(\d+)/g, `TOKEN-$1-${RUN}`);
  // The admin API's examples read the token from $GATEPOST_TOKEN, as a script would.
  const env = { ...process.env, GATEPOST_TOKEN: inject("apiToken") };
  return execFileSync("sh", ["-c", code], { encoding: "utf8", timeout: 30_000, stdio: ["ignore", "pipe", "pipe"], env });
}

function expectDocumentedAnswer(example: ShellExample, output: string) {
  const where = `docs/api.md:${example.line}`;
  const actual = parseCurlOutput(output);
  const documented = example.outputs.map((block) => ({ block, ...parseDocumented(block) }));
  for (const { block, status, headers, bodies } of documented) {
    if (status !== null) expect(actual.status, `${where}: status (doc line ${block.line})`).toBe(status);
    for (const [name, value] of headers) {
      expect(actual.headers.has(name), `${where}: header ${name} (have ${[...actual.headers.keys()]})`).toBe(true);
      if (name === "content-type") expect(actual.headers.get(name), where).toBe(value);
    }
    if (block.lang === "json" && bodies.length > 1 && actual.bodies.length === 1) {
      // Alternatives (a success and a refusal): the answer has the shape of one of them.
      expect(
        bodies.some((body) => matchesDoc(body, actual.bodies[0])),
        `${where}: ${JSON.stringify(actual.bodies[0])}`,
      ).toBe(true);
    } else {
      bodies.forEach((body, i) =>
        expect(matchesDoc(body, actual.bodies[i]), `${where}: ${JSON.stringify(actual.bodies[i])} for ${JSON.stringify(body)}`).toBe(true),
      );
    }
  }
  let jsonLine = 0;
  for (const comment of example.comments) {
    const statusLine = /^HTTP\/[\d.]+ (\d{3})/.exec(comment);
    const header = /^([A-Za-z-]+): (\S+)/.exec(comment);
    if (statusLine) expect(actual.status, `${where}: ${comment}`).toBe(Number(statusLine[1]));
    else if (header) expect(matchesDoc(header[2], actual.headers.get(header[1].toLowerCase())), `${where}: ${comment}`).toBe(true);
    else if (comment.startsWith("("))
      continue; // a remark for the reader
    else if (comment.startsWith("{")) {
      const body = JSON.parse(comment.slice(0, comment.lastIndexOf("}") + 1));
      expect(matchesDoc(body, actual.bodies[jsonLine++]), `${where}: ${comment}`).toBe(true);
    } else
      throw new Error(`${where}: the comment "${comment}" says nothing this test can check; write it as a status line, a header or JSON`);
  }
}

function parseDocumented(block: CodeBlock) {
  if (block.lang === "http") return parseCurlOutput(block.code);
  return { status: null, headers: new Map<string, string>(), bodies: parseJsonRun(block.code) };
}

describe("docs/api.md", () => {
  const blocks = readBlocks(API);
  const examples = shellExamples(blocks);

  it("has its examples found by this test", () => {
    expect(examples.length).toBeGreaterThanOrEqual(5);
    expect(blocks.filter((b) => b.lang === "html")).toHaveLength(1);
  });

  for (const example of examples) {
    it(`answers as the doc shows: ${example.code.split("\n")[0].slice(0, 70)} (line ${example.line})`, () => {
      expectDocumentedAnswer(example, run(example));
    });
  }

  it("runs the plain-HTML embed as written: implicit widget, hidden token field, 303 to the thank-you page", async () => {
    const html = blocks.find((b) => b.lang === "html")!.code;
    const site = inject("allowedSite");
    const served = html
      .replaceAll("https://forms.example.org", inject("baseUrl"))
      .replaceAll("https://challenges.cloudflare.com/turnstile/v0/api.js", `${inject("standinOrigin")}/turnstile/v0/api.js`)
      .replaceAll("YOUR_SITEKEY", "1x00000000000000000000AA");
    const document = `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>Embed</title></head><body>${served}</body></html>`;
    await page.goto(`${site}/raw.html?html=${Buffer.from(document).toString("base64url")}`);
    await page.getByLabel("Your name").fill("Ada Embed");
    await page.getByLabel("E-mail address").fill("ada@example.org");
    await page.getByLabel("Message").fill("Sent from the snippet in docs/api.md.");
    const send = page.getByRole("button", { name: "Send" });
    await expect
      .poll(() => page.locator('.cf-turnstile input[name="cf-turnstile-response"]').inputValue(), WAIT)
      .toMatch(/^XXXX\.DUMMY\.TOKEN\./);
    // data-callback ran: the snippet's captchaDone enabled the button.
    await expect.poll(() => send.isEnabled(), WAIT).toBe(true);
    await send.click();
    await page.getByRole("heading", { name: "Received" }).waitFor(WAIT);
    expect(page.url()).toMatch(/\/f\/contact\/thanks\/[0-9a-f-]{36}$/);
    expect(errors, errors.join("\n")).toEqual([]);
  });
});

describe("docs/webhooks.md", () => {
  it("checks a real delivery's fields against the form's schema with the snippet as written", async () => {
    const doc = readFileSync(new URL("../../docs/webhooks.md", import.meta.url), "utf8");
    const code = /<!-- schema-check:start -->\n```js\n([\s\S]*?)```\n<!-- schema-check:end -->/.exec(doc)?.[1];
    if (!code) throw new Error("docs/webhooks.md lost its schema-check block");
    // Inside the repository, so the snippet's import finds @cfworker/json-schema in node_modules.
    const dir = path.resolve(__dirname, "../../node_modules/.cache", `gatepost-docs-${process.pid}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, "check-fields.mjs"), code);
    try {
      const sent = await fetch(`${inject("baseUrl")}/api/forms/contact/submissions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          name: "Ada",
          email: "ada@example.org",
          message: "Checked against the schema.",
          "cf-turnstile-response": `TOKEN-schema-${RUN}`,
        }),
      });
      expect(sent.status, await sent.clone().text()).toBe(201);
      const { id } = (await sent.json()) as { id: string };
      let payload: unknown = null;
      await expect
        .poll(async () => {
          const state = (await (await fetch(`${inject("sinkControl")}/state`)).json()) as { unique: Array<{ payload: any }> };
          payload = state.unique.find((u) => u.payload?.submission?.id === id)?.payload ?? null;
          return payload !== null;
        }, WAIT)
        .toBe(true);
      const check = (event: unknown) =>
        spawnSync(process.execPath, [path.join(dir, "check-fields.mjs")], {
          input: JSON.stringify(event),
          encoding: "utf8",
          timeout: 30_000,
          env: { ...process.env, GATEPOST_URL: inject("baseUrl") },
        });
      const good = check(payload);
      expect([good.status, good.stdout.trim()], good.stderr).toEqual([0, "the fields match the form's schema"]);
      const changed = payload as { submission: { fields: Record<string, unknown> } };
      const bad = check({
        ...changed,
        submission: { ...changed.submission, fields: { ...changed.submission.fields, email: 42, extra: "x" } },
      });
      expect(bad.status, bad.stderr).toBe(1);
      expect(bad.stdout).toMatch(/#\/email/);
      expect(errors, errors.join("\n")).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
