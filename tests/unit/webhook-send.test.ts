import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DELIVERY_TIMEOUT_MS } from "~/lib/sending/attempt.server";
import { sendWebhook } from "~/lib/sending/standard-webhook.server";
import { parseWebhookSecrets } from "~/lib/sending/signature.server";
import { nextRetryDelayMs, MAX_ATTEMPTS, RETRY_DELAYS_MS } from "~/lib/delivery/settle.server";

// sendWebhook against a real loopback server: what it sends, what it counts as delivered, what it logs.
const parsed = parseWebhookSecrets("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
const keys = parsed.ok ? parsed.keys : [];
const hits: Array<{ path: string; headers: Record<string, unknown> }> = [];
let server: Server;
let origin = "";

beforeAll(async () => {
  server = createServer((req, res) => {
    hits.push({ path: req.url ?? "", headers: req.headers });
    if (req.url === "/redirect") return res.writeHead(307, { location: `${origin}/elsewhere` }).end("moved");
    if (req.url === "/big") return res.writeHead(200).end("é".repeat(2_000));
    // Never answers (closed in afterAll): the timeout wins however slow the machine, with no race.
    if (req.url === "/slow") return;
    if (req.url === "/404") return res.writeHead(404).end("no such hook");
    res.writeHead(204).end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const send = (path: string, timeoutMs?: number) =>
  sendWebhook({ url: `${origin}${path}`, keys, webhookId: "msg_test", body: '{"a":1}', timeoutMs });

describe("sendWebhook", () => {
  it("keeps the production timeout at 10 s", () => {
    expect(DELIVERY_TIMEOUT_MS).toBe(10_000);
  });

  it("sends the Standard Webhooks headers and counts any 2xx as delivered", async () => {
    hits.length = 0;
    expect(await send("/ok")).toMatchObject({ delivered: true, httpStatus: 204, error: null });
    const { headers } = hits[0];
    expect(headers["webhook-id"]).toBe("msg_test");
    expect(headers["webhook-timestamp"]).toMatch(/^\d{10}$/);
    expect(headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(headers["content-type"]).toBe("application/json");
  });

  it("does not follow a redirect and does not count it", async () => {
    hits.length = 0;
    expect(await send("/redirect")).toMatchObject({ delivered: false, httpStatus: 307, error: "redirect" });
    expect(hits.map((h) => h.path)).toEqual(["/redirect"]);
  });

  it("logs non-2xx with the first 1 KiB of the body", async () => {
    expect(await send("/404")).toMatchObject({ delivered: false, httpStatus: 404, error: "http_status", excerpt: "no such hook" });
    const big = await send("/big");
    expect(new TextEncoder().encode(big.excerpt ?? "").length).toBeLessThanOrEqual(1_024 + 2);
    expect(big.excerpt?.startsWith("éé")).toBe(true);
  });

  it("classifies timeouts and refused connections", async () => {
    const slow = await send("/slow", 200);
    expect(slow).toMatchObject({ delivered: false, httpStatus: null, error: "timeout" });
    expect(slow.latencyMs).toBeGreaterThanOrEqual(190);
    const refused = await sendWebhook({ url: "http://127.0.0.1:1/hook", keys, webhookId: "msg_x", body: "{}" });
    expect(refused).toMatchObject({ delivered: false, error: "network" });
  });
});

describe("retry schedule", () => {
  it("waits longer each time, jitters by ±20 %, and stops after the last attempt", () => {
    expect(nextRetryDelayMs(1, () => 0)).toBe(8_000);
    expect(nextRetryDelayMs(1, () => 1)).toBe(12_000);
    expect(nextRetryDelayMs(MAX_ATTEMPTS)).toBeNull();
    const shortest = RETRY_DELAYS_MS.reduce((sum, d) => sum + d * 0.8, 0);
    expect(shortest).toBeGreaterThan(24 * 3_600_000);
  });
});
