import { afterEach, describe, expect, it } from "vitest";
// @ts-expect-error - plain ESM test support shared with npm start and the bench
import { startWebhookSink } from "../support/webhook-sink.mjs";

// The local sink stands in for every receiver in npm start, the tests and the bench, so what it
// counts must be deliveries only: a browser that opens its page also asks for /favicon.ico.

let sink: {
  url: string;
  origin: string;
  setMode: (m: string, o?: object) => Promise<void>;
  snapshot: () => { requests: unknown[] };
  close: () => Promise<void>;
};

afterEach(async () => {
  await sink?.close();
});

describe("local sink", () => {
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
});
