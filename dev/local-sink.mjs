// The local sink for `npm start`, tests and the benchmark: every destination kind in one loopback server.
// - /webhook verifies Standard Webhooks signatures with the official `standardwebhooks` library and
//   deduplicates by webhook-id the way a careful receiver should;
// - a chat kind's path (/slack, /discord: its sink.mjs) takes what its webhooks would, and keeps it as a
//   person would read it (title, each field, reference), or refuses what the service would not show;
// - captureEmail(raw) (and POST /email) keeps an e-mail the Worker's simulated send_email wrote;
// - POST /resend/emails and /postmark/email stand in for those providers' send APIs (ADR 092): the
//   message is kept and shown like any e-mail, with the provider's name; a call without its key is 401;
// - a kind with a stand-in (its sink.mjs `start`: /sheets/…, /airtable/…) answers under its path (told the sink's mode): each row
//   and record is shown on the page; `sheetsKey` is the service account key the Sheets stand-in trusts;
// - GET / is a small HTML page listing every webhook and message, newest first (it fits a phone);
//   GET /messages is the messages but webhooks as JSON (webhooks: the control port's /state).
// - POST /console-secrets {form, secrets} learns the secrets the console made for a form (the local Worker
//   tells it, ADR 066), kept in `stateFile` when given so they survive a restart; a delivery is verified
//   with the sink's own secret or any of them;
// - a delivery it refuses (bad signature, not JSON) is listed on the page with the reason.
// It can play a broken receiver: down (connection refused), http500, slow, reset (TCP reset), http429
// (with Retry-After) and http404 (a deleted chat webhook), set with POST /mode on its own port
// (every mode but down) or on a second loopback port that takes control calls, so tests inside workerd
// can flip modes over HTTP.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { Webhook } from "standardwebhooks";
import { describeEmail, describeProviderEmail, describeRefusal, renderMessagesPage } from "./sink-page.mjs";
import { verifyV1a } from "./verify-v1a.mjs";

/** Where the destination kinds live, each a folder; a kind's part of the sink is its sink.mjs (ADR 114). */
const KINDS = new URL("../app/lib/destinations/", import.meta.url);

/** Every kind's part of the sink, by folder name: what it shows, and its path, description or stand-in. */
export async function loadKindSinks() {
  const folders = readdirSync(KINDS, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(new URL(`${entry.name}/sink.mjs`, KINDS)))
    .map((entry) => entry.name)
    .sort();
  return Promise.all(folders.map(async (folder) => (await import(new URL(`${folder}/sink.mjs`, KINDS).href)).sink));
}
const KIND_SINKS = await loadKindSinks();
const webhookSink = KIND_SINKS.find((kind) => kind.kind === "webhook");
/** The kinds POSTed to a path of their own, as a chat webhook is: path → the kind's sink part. */
const CHAT_PATHS = new Map(KIND_SINKS.filter((kind) => kind.path).map((kind) => [kind.path, kind]));

/** The stand-in send APIs of the HTTP e-mail providers, by path (the provider's base URL is the sink's origin + /resend or /postmark). */
const PROVIDER_PATHS = { "/resend/emails": "resend", "/postmark/email": "postmark" };

export const SINK_MODES = ["normal", "down", "http500", "slow", "reset", "http429", "http404"];

/**
 * True when the delivery verifies under any of the space-separated `whsec_` secrets, checked by the
 * official `standardwebhooks` library as a receiver would (signature and a timestamp within 5 minutes),
 * or any `whsk_`/`whpk_` key's `v1a` signature (dev/verify-v1a.mjs).
 */
export function verifyDelivery(secrets, body, headers) {
  const all = String(secrets).trim().split(/\s+/);
  // A whsk_ key signs v1a (ed25519): verified on Node's crypto, as the library checks v1 only (ADR 120).
  const asymmetric = all.filter((secret) => secret.startsWith("whsk_") || secret.startsWith("whpk_"));
  if (asymmetric.length > 0 && verifyV1a(asymmetric, body, headers)) return true;
  return all
    .filter((secret) => !asymmetric.includes(secret))
    .some((secret) => {
      try {
        new Webhook(secret).verify(body, headers);
        return true;
      } catch {
        return false;
      }
    });
}

/** The same sink under the name `npm start` uses: startLocalSink({ port, secret, log }). */
export function startLocalSink(options) {
  return startWebhookSink(options);
}

/** The console's secrets kept in `stateFile` ({ consoleSecrets: { form: "whsec_…" } }); none when absent or unreadable. */
function readConsoleSecrets(stateFile) {
  if (!stateFile) return new Map();
  try {
    const kept = JSON.parse(readFileSync(stateFile, "utf8")).consoleSecrets ?? {};
    return new Map(Object.entries(kept).filter(([, value]) => typeof value === "string"));
  } catch {
    return new Map();
  }
}

export async function startWebhookSink({ port = 0, host = "127.0.0.1", secret, log = false, stateFile = null } = {}) {
  if (!secret) throw new Error("startWebhookSink needs the whsec_ secret(s) to verify with");
  const state = {
    mode: "normal",
    delayMs: 15_000,
    retryAfter: "2",
    times: Infinity,
    requests: [],
    unique: new Map(),
    messages: [],
    // More secrets to accept beside `secret`, set over the control port (a test of secrets made in the console).
    extraSecrets: "",
    // The secrets the console made, per form, as the local Worker told them (POST /console-secrets).
    consoleSecrets: readConsoleSecrets(stateFile),
    // Deliveries refused, for the page: what a person needs to fix them.
    refused: [],
  };
  const print = (line) => log && console.log(`[webhook sink] ${line}`);

  /** Keeps a message as a person would read it, and prints it when logging. */
  function keep(message) {
    state.messages.push(message);
    if (!log) return;
    console.log(`\n[local sink] ${message.kind.toUpperCase()} ${message.title}`);
    for (const [name, value] of message.headers ?? []) console.log(`  ${name}: ${value}`);
    for (const line of message.text.split("\n")) console.log(`  | ${line}`);
  }

  // The kinds' stand-ins (Google Sheets, Airtable), made once the port (a token URI) is known.
  let standins = [];
  const server = createServer(async (req, res) => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const body = Buffer.concat(chunks).toString("utf8");
    const path = new URL(req.url ?? "/", "http://sink").pathname;
    if (req.method === "GET" && path === "/") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
      return res.end(
        renderMessagesPage(
          [...state.messages, ...[...state.unique.values()].map(webhookSink.describe), ...state.refused],
          KIND_SINKS.map((kind) => kind.shows),
        ),
      );
    }
    if (req.method === "POST" && path === "/console-secrets") {
      try {
        learnConsoleSecrets(JSON.parse(body));
        res.writeHead(200, { "content-type": "text/plain" });
        return res.end("kept");
      } catch (error) {
        res.writeHead(400, { "content-type": "text/plain" });
        return res.end(`not kept: ${error.message}`);
      }
    }
    if (req.method === "POST" && path === "/mode") return setModeOnSinkPort(res, body);
    if (req.method === "GET" && path === "/messages") {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(JSON.stringify(state.messages));
    }
    const table = standins.map((standin) => standin.handle(req.method, path, req.headers, body, state.mode)).find(Boolean);
    if (table) {
      res.writeHead(table.status, { "content-type": "application/json" });
      return res.end(JSON.stringify(table.body));
    }
    const provider = req.method === "POST" ? PROVIDER_PATHS[path] : undefined;
    if (provider) {
      const key =
        provider === "resend"
          ? /^Bearer (\S+)$/.exec(String(req.headers.authorization ?? ""))?.[1]
          : req.headers["x-postmark-server-token"];
      const record = {
        at: new Date().toISOString(),
        kind: provider,
        id: "",
        timestamp: "",
        mode: state.mode,
        outcome: "",
        status: 0,
        signatureValid: false,
        signatures: 0,
      };
      state.requests.push(record);
      if (!key) {
        refuse(record, 401, `no ${provider} API key on the request`);
        return answer(res, record, 401, "rejected", JSON.stringify({ name: "missing_api_key", ErrorCode: 10 }));
      }
      if (state.mode === "http429")
        return answer(res, record, 429, "http429", JSON.stringify({ name: "rate_limit_exceeded" }), { "retry-after": state.retryAfter });
      let payload = null;
      try {
        payload = JSON.parse(body);
      } catch {
        // refused below
      }
      if (!payload) {
        refuse(record, 422, `the body is not JSON, as ${provider} refuses it`);
        return answer(res, record, 422, "rejected", JSON.stringify({ name: "validation_error", ErrorCode: 300 }));
      }
      const message = describeProviderEmail(provider, payload);
      record.reference = message.reference;
      keep(message);
      const id = `standin-${state.requests.length}`;
      return answer(
        res,
        record,
        200,
        "accepted",
        JSON.stringify(provider === "resend" ? { id } : { MessageID: id, ErrorCode: 0, Message: "OK" }),
      );
    }
    if (req.method === "POST" && path === "/email") {
      keep(describeEmail(body));
      res.writeHead(202, { "content-type": "text/plain" });
      return res.end("kept");
    }
    // Only a POST is a delivery. A browser on the sink page also asks for /favicon.ico, which must
    // neither be logged as a refused webhook nor use up a failure mode set with `times`.
    if (req.method !== "POST") {
      res.writeHead(404, { "content-type": "text/plain" });
      return res.end("not a delivery: deliveries are POSTed");
    }
    const chat = CHAT_PATHS.get(path);
    const kind = chat?.kind ?? "webhook";
    const id = String(req.headers["webhook-id"] ?? "");
    const timestamp = String(req.headers["webhook-timestamp"] ?? "");
    const mode = state.mode;
    if (state.times !== Infinity && --state.times <= 0) setMode("normal");
    const signatures = String(req.headers["webhook-signature"] ?? "")
      .split(" ")
      .filter((part) => part.startsWith("v1,")).length;
    const record = { at: new Date().toISOString(), kind, id, timestamp, mode, outcome: "", status: 0, signatureValid: false, signatures };
    state.requests.push(record);

    if (mode === "reset") {
      record.outcome = "reset";
      print(`✖ ${id} reset the connection (mode reset)`);
      return req.socket.resetAndDestroy();
    }
    if (mode === "http500") {
      print(`✖ ${id || kind} answered 500 (mode http500)`);
      return answer(res, record, 500, "http500", "sink: simulated failure");
    }
    if (mode === "http429") {
      print(`✖ ${id || kind} answered 429, Retry-After ${state.retryAfter} (mode http429)`);
      return answer(res, record, 429, "http429", "sink: rate limited", { "retry-after": state.retryAfter });
    }
    if (mode === "http404") {
      print(`✖ ${id || kind} answered 404 (mode http404: webhook deleted)`);
      return answer(res, record, 404, "http404", "no_service");
    }
    if (mode === "slow") {
      await new Promise((r) => setTimeout(r, state.delayMs));
      if (res.destroyed || req.socket.destroyed) {
        record.outcome = "abandoned";
        print(`… ${id} answered too late: the sender had already given up (mode slow)`);
        return;
      }
    }
    if (chat) {
      let payload = null;
      try {
        payload = JSON.parse(body);
      } catch {
        // not JSON: refused below, as the chat services refuse it
      }
      if (!payload) {
        refuse(record, 400, `the body is not JSON, as ${chat.product} refuses it`);
        return answer(res, record, 400, "rejected", "invalid_payload");
      }
      const message = chat.describe(payload);
      if (message.refused) {
        refuse(record, 400, message.refused);
        return answer(res, record, 400, "rejected", "invalid_payload");
      }
      record.reference = message.reference;
      keep(message);
      return answer(res, record, chat.answer.status, "accepted", chat.answer.body);
    }
    record.signatureValid = Boolean(id) && verifyDelivery(knownSecrets(), body, req.headers);
    if (!record.signatureValid) {
      print(`✖ ${id || "(no webhook-id)"} signature did NOT check out: refused with 401`);
      refuse(
        record,
        401,
        id
          ? "the signature does not verify with the sink's secret (printed at start) or any secret made in the console; a secret set in the environment must be the sink's"
          : "no webhook-id header: not a Standard Webhooks delivery",
        formOf(body),
      );
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
    state.unique.set(id, { id, payload, firstAt: record.at, duplicates: 0, headers: signedHeaders(req.headers) });
    print(`✔ ${id} signature OK · ${payload?.type} form=${payload?.form} submission=${payload?.submission?.id}`);
    if (log) print(`  fields: ${JSON.stringify(payload?.submission?.fields ?? {})}`);
    answer(res, record, 200, "accepted", "ok");
  });

  /**
   * POST /mode on the sink's own port, as `npm start` prints it: every mode the control port takes but
   * down, which closes this port and so could not be turned back here.
   */
  async function setModeOnSinkPort(res, body) {
    try {
      const { mode, ...options } = JSON.parse(body || "{}");
      if (mode === "down") throw new Error("down closes this port; the control port takes it");
      await setMode(mode, options);
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ mode: state.mode }));
    } catch (error) {
      res.writeHead(400, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: String(error.message ?? error) }));
    }
  }

  /** Every secret a delivery may be signed with: the sink's, the control port's extras, the console's. */
  function knownSecrets() {
    return [secret, state.extraSecrets, ...state.consoleSecrets.values()].join(" ");
  }

  /** Keeps what the console made for one form ("" forgets it), and writes them to `stateFile`. */
  function learnConsoleSecrets({ form, secrets }) {
    if (typeof form !== "string" || typeof secrets !== "string") throw new Error("expected { form, secrets }");
    if (secrets.trim() === "") state.consoleSecrets.delete(form);
    else state.consoleSecrets.set(form, secrets.trim());
    print(`learnt the console's signing secret(s) for form ${form}`);
    if (stateFile) writeFileSync(stateFile, JSON.stringify({ consoleSecrets: Object.fromEntries(state.consoleSecrets) }, null, 2));
  }

  /** Lists a refused delivery on the page, with the reason. */
  function refuse(record, status, reason, form = null) {
    state.refused.push(describeRefusal({ ...record, status, reason, form }));
  }

  /** The form a webhook body names, for the page; null when it names none. */
  function formOf(body) {
    try {
      const form = JSON.parse(body)?.form;
      return typeof form === "string" ? form : null;
    } catch {
      return null;
    }
  }

  /** The Standard Webhooks headers of a delivery, for its entry on the page. */
  function signedHeaders(headers) {
    return ["webhook-id", "webhook-timestamp", "webhook-signature"].map((name) => [name, String(headers[name] ?? "")]);
  }

  function answer(res, record, status, outcome, text, headers = {}) {
    record.status = status;
    record.outcome = outcome;
    if (res.destroyed) return;
    res.writeHead(status, { "content-type": "text/plain", ...headers });
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

  async function setMode(mode, { delayMs, times, retryAfter } = {}) {
    if (!SINK_MODES.includes(mode)) throw new Error(`unknown sink mode ${mode}`);
    const wasDown = state.mode === "down";
    state.mode = mode;
    state.delayMs = delayMs ?? 15_000;
    state.retryAfter = String(retryAfter ?? 2);
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
  standins = KIND_SINKS.filter((kind) => kind.start).map((kind) => kind.start(`http://${host}:${boundPort}`, keep));
  const sheetsKey = standins.find((standin) => standin.sheetsKey)?.sheetsKey ?? null;
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
      if (req.method === "POST" && req.url === "/secrets") {
        const { secrets = "" } = JSON.parse(Buffer.concat(chunks).toString() || "{}");
        state.extraSecrets = String(secrets);
        return reply(200, { ok: true });
      }
      if (req.method === "POST" && req.url === "/reset") {
        await reset();
        return reply(200, { ok: true });
      }
      if (req.method === "GET" && req.url === "/state") return reply(200, snapshot());
      if (req.method === "POST" && req.url === "/email") {
        keep(describeEmail(Buffer.concat(chunks).toString("utf8")));
        return reply(200, { ok: true });
      }
      reply(404, { error: "not found" });
    } catch (error) {
      reply(400, { error: String(error) });
    }
  });
  const controlPort = await new Promise((resolve) => control.listen(0, host, () => resolve(control.address().port)));

  function snapshot() {
    return {
      mode: state.mode,
      requests: state.requests,
      unique: [...state.unique.values()],
      messages: state.messages,
      refused: state.refused,
      // The service account key its Sheets stand-in trusts (tests in workerd read it here).
      sheetsKey,
    };
  }

  async function reset() {
    await setMode("normal");
    state.requests = [];
    state.unique = new Map();
    state.messages = [];
    state.refused = [];
    state.extraSecrets = "";
    // Only in memory: a test's reset starts clean, and `npm start` never resets.
    state.consoleSecrets = new Map();
  }

  const origin = `http://${host}:${boundPort}`;
  return {
    url: `${origin}/webhook`,
    webhookUrl: `${origin}/webhook`,
    // Each chat kind's endpoint: slackUrl, discordUrl.
    ...Object.fromEntries(KIND_SINKS.filter((kind) => kind.path).map((kind) => [`${kind.kind}Url`, `${origin}${kind.path}`])),
    /** The service account key (JSON) whose JWTs the Sheets stand-in at `${origin}/sheets` accepts. */
    sheetsKey,
    /** The page listing every message the sink got, as a person would read it. */
    pageUrl: `${origin}/`,
    /** POST {"mode": …} here plays a broken receiver on the sink's own port (not "down"). */
    modeUrl: `${origin}/mode`,
    origin,
    /** Keeps one e-mail (RFC 5322 text), e.g. one the Worker's simulated send_email wrote. */
    captureEmail(raw) {
      keep(describeEmail(String(raw)));
    },
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

// `node dev/local-sink.mjs`: a sink on its own, printing what arrives.
if (import.meta.url === `file://${process.argv[1]}`) {
  const secret = process.env.CONTACT_WEBHOOK_SECRET;
  const sink = await startWebhookSink({ port: Number(process.env.SINK_PORT || 0), secret, log: true });
  console.log(`webhook sink on ${sink.url} (control ${sink.controlOrigin})`);
}
