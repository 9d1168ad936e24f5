// A local webhook receiver for `npm start`, tests and the benchmark. It verifies Standard Webhooks
// signatures, deduplicates by webhook-id the way a careful receiver should, and can play a broken
// receiver: down (connection refused), http500, slow, and reset (TCP reset). It listens on loopback
// only. A second loopback port takes control calls, so tests inside workerd can flip modes over HTTP.
import { createServer } from "node:http";

export const SINK_MODES = ["normal", "down", "http500", "slow", "reset"];
const encoder = new TextEncoder();

/** Verifies a webhook-signature header against every `whsec_` secret in `secrets`. */
export async function verifySignature(secrets, id, timestamp, body, header) {
  const expected = [];
  for (const secret of String(secrets).trim().split(/\s+/)) {
    const key = await crypto.subtle.importKey(
      "raw",
      Buffer.from(secret.replace(/^whsec_/, ""), "base64"),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign"],
    );
    const mac = await crypto.subtle.sign("HMAC", key, encoder.encode(`${id}.${timestamp}.${body}`));
    expected.push(Buffer.from(mac).toString("base64"));
  }
  const offered = String(header ?? "").split(" ").filter((s) => s.startsWith("v1,")).map((s) => s.slice(3));
  return offered.some((sig) => expected.some((want) => constantTimeEqual(sig, want)));
}

function constantTimeEqual(a, b) {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

export async function startWebhookSink({ port = 0, host = "127.0.0.1", secret, log = false, toleranceSeconds = 300 } = {}) {
  if (!secret) throw new Error("startWebhookSink needs the whsec_ secret(s) to verify with");
  const state = { mode: "normal", delayMs: 15_000, times: Infinity, requests: [], unique: new Map() };
  const print = (line) => log && console.log(`[webhook sink] ${line}`);

  const server = createServer(async (req, res) => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const body = Buffer.concat(chunks).toString("utf8");
    const id = String(req.headers["webhook-id"] ?? "");
    const timestamp = String(req.headers["webhook-timestamp"] ?? "");
    const mode = state.mode;
    if (state.times !== Infinity && --state.times <= 0) setMode("normal");
    const record = { at: new Date().toISOString(), id, timestamp, mode, outcome: "", status: 0, signatureValid: false };
    state.requests.push(record);

    if (mode === "reset") {
      record.outcome = "reset";
      print(`✖ ${id} reset the connection (mode reset)`);
      return req.socket.resetAndDestroy();
    }
    if (mode === "http500") {
      print(`✖ ${id} answered 500 (mode http500)`);
      return answer(res, record, 500, "http500", "sink: simulated failure");
    }
    if (mode === "slow") {
      await new Promise((r) => setTimeout(r, state.delayMs));
      if (res.destroyed || req.socket.destroyed) {
        record.outcome = "abandoned";
        print(`… ${id} answered too late: the sender had already given up (mode slow)`);
        return;
      }
    }
    const age = Math.abs(Date.now() / 1000 - Number(timestamp));
    record.signatureValid = Boolean(id) && age <= toleranceSeconds && (await verifySignature(secret, id, timestamp, body, req.headers["webhook-signature"]));
    if (!record.signatureValid) {
      print(`✖ ${id || "(no webhook-id)"} signature did NOT check out: refused with 401`);
      return answer(res, record, 401, "rejected", "invalid signature");
    }
    const seen = state.unique.get(id);
    if (seen) {
      seen.duplicates += 1;
      print(`↺ ${id} duplicate (already have it): answered 200, not processed again`);
      return answer(res, record, 200, "duplicate", "duplicate");
    }
    let payload = null;
    try {
      payload = JSON.parse(body);
    } catch {
      // not JSON: kept as null, and the payload assertions say so
    }
    state.unique.set(id, { id, payload, firstAt: record.at, duplicates: 0 });
    print(`✔ ${id} signature OK · ${payload?.type} form=${payload?.form} submission=${payload?.submission?.id}`);
    if (log) print(`  fields: ${JSON.stringify(payload?.submission?.fields ?? {})}`);
    answer(res, record, 200, "accepted", "ok");
  });

  function answer(res, record, status, outcome, text) {
    record.status = status;
    record.outcome = outcome;
    if (res.destroyed) return;
    res.writeHead(status, { "content-type": "text/plain" });
    res.end(text);
  }

  function listen(p) {
    return new Promise((resolve, reject) => {
      server.once("error", reject);
      server.listen(p, host, () => {
        server.off("error", reject);
        resolve(server.address().port);
      });
    });
  }

  async function setMode(mode, { delayMs, times } = {}) {
    if (!SINK_MODES.includes(mode)) throw new Error(`unknown sink mode ${mode}`);
    const wasDown = state.mode === "down";
    state.mode = mode;
    state.delayMs = delayMs ?? 15_000;
    state.times = times ?? Infinity;
    if (mode === "down" && !wasDown) {
      await new Promise((r) => {
        server.close(() => r());
        server.closeAllConnections();
      });
    } else if (mode !== "down" && wasDown) {
      await listen(boundPort);
    }
  }

  const boundPort = await listen(port);
  const control = createServer(async (req, res) => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const reply = (status, value) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(value));
    };
    try {
      if (req.method === "POST" && req.url === "/mode") {
        const { mode, ...options } = JSON.parse(Buffer.concat(chunks).toString() || "{}");
        await setMode(mode, options);
        return reply(200, { mode: state.mode });
      }
      if (req.method === "POST" && req.url === "/reset") {
        await reset();
        return reply(200, { ok: true });
      }
      if (req.method === "GET" && req.url === "/state") return reply(200, snapshot());
      reply(404, { error: "not found" });
    } catch (error) {
      reply(400, { error: String(error) });
    }
  });
  const controlPort = await new Promise((resolve) => control.listen(0, host, () => resolve(control.address().port)));

  function snapshot() {
    return { mode: state.mode, requests: state.requests, unique: [...state.unique.values()] };
  }

  async function reset() {
    await setMode("normal");
    state.requests = [];
    state.unique = new Map();
  }

  const origin = `http://${host}:${boundPort}`;
  return {
    url: `${origin}/webhook`,
    origin,
    controlOrigin: `http://${host}:${controlPort}`,
    secret,
    setMode,
    reset,
    snapshot,
    async close() {
      server.closeAllConnections();
      await new Promise((r) => (server.listening ? server.close(() => r()) : r()));
      control.closeAllConnections();
      await new Promise((r) => control.close(() => r()));
    },
  };
}

// `node tests/support/webhook-sink.mjs`: a sink on its own, printing what arrives.
if (import.meta.url === `file://${process.argv[1]}`) {
  const secret = process.env.CONTACT_WEBHOOK_SECRET;
  const sink = await startWebhookSink({ port: Number(process.env.SINK_PORT || 0), secret, log: true });
  console.log(`webhook sink on ${sink.url} (control ${sink.controlOrigin})`);
}
