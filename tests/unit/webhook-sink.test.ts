import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Webhook } from "standardwebhooks";
import { afterEach, describe, expect, it } from "vitest";
import { KIND_SPECS } from "~/lib/destinations/registry";
// @ts-expect-error - plain ESM test support shared with npm start and the bench
import { startWebhookSink } from "../../dev/local-sink.mjs";
// @ts-expect-error - plain ESM test support
import { renderMessagesPage } from "../../dev/sink-page.mjs";
// @ts-expect-error - plain ESM shared with npm start
import { sink as webhookSink } from "~/lib/destinations/webhook/sink.mjs";

// The local sink stands in for every receiver in npm start, the tests and the bench, so what it
// counts must be deliveries only: a browser that opens its page also asks for /favicon.ico.

let sink: {
  url: string;
  origin: string;
  setMode: (m: string, o?: object) => Promise<void>;
  snapshot: () => { requests: Array<{ signatureValid: boolean; status: number }>; refused: Array<{ title: string }> };
  close: () => Promise<void>;
};

afterEach(async () => {
  await sink?.close();
});

describe("local sink", () => {
  it("plays a broken receiver when asked on its own port, as npm start prints it, but not down", async () => {
    sink = await startWebhookSink({ secret: `whsec_${Buffer.alloc(32, 7).toString("base64")}` });
    const asked = await fetch(`${sink.origin}/mode`, { method: "POST", body: JSON.stringify({ mode: "http500", times: 1 }) });
    expect(await asked.json()).toEqual({ mode: "http500" });
    expect((await fetch(sink.url, { method: "POST", body: "{}" })).status).toBe(500);
    // The call itself was no delivery: only the POST above is counted.
    expect(sink.snapshot().requests).toHaveLength(1);
    const down = await fetch(`${sink.origin}/mode`, { method: "POST", body: JSON.stringify({ mode: "down" }) });
    expect(down.status).toBe(400);
    expect((await fetch(sink.url, { method: "POST", body: "{}" })).status).toBe(401);
  });

  it("answers a stray GET with 404 without counting it or using up a failure mode", async () => {
    sink = await startWebhookSink({ secret: `whsec_${Buffer.alloc(32, 7).toString("base64")}` });
    await sink.setMode("http500", { times: 1 });
    const favicon = await fetch(`${sink.origin}/favicon.ico`);
    expect(favicon.status).toBe(404);
    expect(sink.snapshot().requests).toEqual([]);
    // The one simulated failure is still there for the next delivery, which an unsigned POST is.
    const post = await fetch(sink.url, { method: "POST", body: "{}" });
    expect(post.status).toBe(500);
    const next = await fetch(sink.url, { method: "POST", body: "{}" });
    expect(next.status).toBe(401);
    expect(sink.snapshot().requests).toHaveLength(2);
  });

  it("still serves its page and its messages to a GET", async () => {
    sink = await startWebhookSink({ secret: `whsec_${Buffer.alloc(32, 7).toString("base64")}` });
    expect((await fetch(`${sink.origin}/`)).status).toBe(200);
    expect(await (await fetch(`${sink.origin}/messages`)).json()).toEqual([]);
  });

  it("verifies with secrets the console made, told on /console-secrets, and keeps them across a restart", async () => {
    const stateFile = path.join(mkdtempSync(path.join(tmpdir(), "sink-")), "local-sink.json");
    const own = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;
    const made = `whsec_${Buffer.alloc(32, 9).toString("base64")}`;
    const body = JSON.stringify({ type: "submission.created", form: "lunch", submission: { id: "s1", fields: {} } });
    const deliver = async (id: string) => {
      const now = new Date();
      const signature = new Webhook(made).sign(id, now, body);
      const headers = { "webhook-id": id, "webhook-timestamp": String(Math.floor(now.getTime() / 1000)), "webhook-signature": signature };
      return (await fetch(sink.url, { method: "POST", body, headers })).status;
    };
    sink = await startWebhookSink({ secret: own, stateFile });
    expect(await deliver("msg_1")).toBe(401);
    expect(sink.snapshot().refused.map((r) => r.title)).toEqual(["webhook refused with 401 (form lunch)"]);
    const page = await (await fetch(`${sink.origin}/`)).text();
    expect(page).toContain("webhook refused with 401 (form lunch)");
    expect(page).toContain("does not verify with the sink&#39;s secret");
    const told = await fetch(`${sink.origin}/console-secrets`, { method: "POST", body: JSON.stringify({ form: "lunch", secrets: made }) });
    expect(told.status).toBe(200);
    expect(await deliver("msg_2")).toBe(200);
    await sink.close();

    // Restarted on the same state file: it still knows the console's secret.
    sink = await startWebhookSink({ secret: `whsec_${Buffer.alloc(32, 1).toString("base64")}`, stateFile });
    expect(await deliver("msg_3")).toBe(200);
    // Forgotten once the console clears it.
    await fetch(`${sink.origin}/console-secrets`, { method: "POST", body: JSON.stringify({ form: "lunch", secrets: "" }) });
    expect(await deliver("msg_4")).toBe(401);
    expect((await fetch(`${sink.origin}/console-secrets`, { method: "POST", body: "[]" })).status).toBe(400);
  });
});

describe("the sink's page", () => {
  it("shows a file field as each file's name, size and download link, and every http(s) address as a link", () => {
    const link = "http://localhost:8788/files/s1/f1?expires=1&sig=abc";
    const message = webhookSink.describe({
      id: "msg_1",
      firstAt: "2026-11-26T00:00:00.000Z",
      payload: {
        type: "submission.created",
        form: "apply",
        submission: {
          id: "s1",
          fields: { name: "Ada", cv: [{ id: "f1", name: "cv.pdf", type: "application/pdf", size: 1234, sha256: "0".repeat(64) }] },
          files: [{ id: "f1", field: "cv", url: link }],
        },
      },
    });
    expect(message.text).toContain(`cv: cv.pdf (application/pdf, 1234 bytes) ${link}`);
    expect(message.text).not.toContain("[object Object]");
    const page: string = renderMessagesPage(
      [message, { kind: "slack", at: "2026", title: "t", text: `See (${link}). <b>javascript:alert(1)</b>` }],
      ["webhooks"],
    );
    const href = link.replace("&", "&amp;");
    expect(page.match(new RegExp(`<a href="${href.replace(/[?.]/g, "\\$&")}" rel="noreferrer">`, "g"))).toHaveLength(2);
    // The sentence's ")." stays outside the link; what is not an http(s) address stays text.
    expect(page).toContain(`</a>). &lt;b&gt;javascript:alert(1)&lt;/b&gt;`);
  });
});

describe("the sink's page", () => {
  it("names every destination kind in its intro, each kind's part of the sink found in its folder", async () => {
    sink = await startWebhookSink({ secret: `whsec_${Buffer.alloc(32, 3).toString("base64")}` });
    const page = await (await fetch(`${sink!.origin}/`)).text();
    const intro = /<h1>[^<]*<\/h1><p>(.*?)<\/p>/s.exec(page)?.[1]?.toLowerCase() ?? "";
    expect(intro).toContain("npm start");
    // Each kind by its product (Slack, Google Sheets, …) or its label's first word (webhook, e-mail, confirmation).
    const names = KIND_SPECS.map((spec) => (spec.product ?? spec.label.split(" ")[0]!).toLowerCase());
    expect(names).toHaveLength(10);
    expect(names.filter((name) => !intro.includes(name))).toEqual([]);
  });
});
