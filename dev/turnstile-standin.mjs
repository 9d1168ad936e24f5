// A local stand-in for Cloudflare Turnstile: an api.js implementing window.turnstile, and a siteverify
// that answers as Cloudflare's documented test secrets do. It only ever listens on loopback; the app
// refuses plain-http verify URLs that are not loopback, so a deployed site cannot be pointed at it.
import { createServer } from "node:http";
import { readFileSync } from "node:fs";

const API_JS = readFileSync(new URL("./turnstile-standin-api.js", import.meta.url), "utf8");

/** Modes that change how siteverify answers; `times` limits a mode to the next N calls. */
export const MODES = ["normal", "slow", "http500", "badjson", "drop", "internal-error", "reject"];

const SECRET = /^([123])x0{31}AA$/;

export async function startTurnstileStandin({ port = 0, host = "127.0.0.1", tokenTtlMs = 300_000 } = {}) {
  const state = { mode: "normal", delayMs: 0, times: Infinity, calls: [], used: new Map(), answered: new Map() };

  const server = createServer(async (req, res) => {
    const url = new URL(req.url, "http://standin");
    try {
      if (req.method === "GET" && url.pathname === "/turnstile/v0/api.js") {
        res.writeHead(200, {
          "content-type": "application/javascript; charset=utf-8",
          "cache-control": "no-store",
          "access-control-allow-origin": "*",
        });
        return res.end(API_JS.replace("__TOKEN_TTL_MS__", String(tokenTtlMs)));
      }
      if (req.method === "POST" && url.pathname === "/turnstile/v0/siteverify") return await siteverify(req, res);
      if (req.method === "POST" && url.pathname === "/__standin/mode") {
        const body = JSON.parse((await readBody(req)) || "{}");
        setMode(body.mode ?? "normal", body);
        return json(res, 200, { mode: state.mode });
      }
      if (req.method === "POST" && url.pathname === "/__standin/reset") {
        reset();
        return json(res, 200, { ok: true });
      }
      if (req.method === "GET" && url.pathname === "/__standin/calls") return json(res, 200, state.calls);
      json(res, 404, { error: "not found" });
    } catch (error) {
      json(res, 500, { error: String(error) });
    }
  });

  async function siteverify(req, res) {
    const raw = await readBody(req);
    const type = String(req.headers["content-type"] ?? "");
    const params = type.includes("json") ? JSON.parse(raw || "{}") : Object.fromEntries(new URLSearchParams(raw));
    const call = {
      at: new Date().toISOString(),
      contentType: type,
      secret: params.secret,
      response: params.response,
      remoteip: params.remoteip,
      idempotency_key: params.idempotency_key,
      mode: state.mode,
    };
    state.calls.push(call);
    const { mode, delayMs } = state;
    if (state.times !== Infinity && --state.times <= 0) setMode("normal");
    if (mode === "slow") await new Promise((r) => setTimeout(r, delayMs || 15_000));
    if (mode === "drop") return req.socket.destroy();
    if (mode === "http500") {
      res.writeHead(500, { "content-type": "text/html" });
      return res.end("<html><body>500 Internal Server Error</body></html>");
    }
    if (mode === "badjson") {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end("<html>this is not json");
    }
    if (mode === "internal-error") return json(res, 200, { success: false, "error-codes": ["internal-error"] });
    if (mode === "reject") return json(res, 200, { success: false, "error-codes": ["invalid-input-response"] });
    json(res, 200, answer(params));
  }

  function answer({ secret, response, idempotency_key: key }) {
    if (!secret) return fail("missing-input-secret");
    const match = SECRET.exec(secret);
    if (!match) return fail("invalid-input-secret");
    if (!response) return fail("missing-input-response");
    // A retry with the same idempotency key gets the first answer again, as Cloudflare documents.
    const cacheKey = `${key}|${response}`;
    if (key && state.answered.has(cacheKey)) return state.answered.get(cacheKey);
    let result;
    if (match[1] === "2") result = fail("invalid-input-response");
    else if (match[1] === "3") result = fail("timeout-or-duplicate");
    else if (state.used.has(response)) result = fail("timeout-or-duplicate");
    else {
      state.used.set(response, true);
      const claims = decodeToken(response);
      result = {
        success: true,
        challenge_ts: claims.t ?? new Date().toISOString(),
        hostname: claims.h ?? "example.com",
        "error-codes": [],
        action: claims.a ?? "",
        cdata: claims.c ?? "",
        metadata: { result_with_testing_key: true },
      };
    }
    if (key) state.answered.set(cacheKey, result);
    return result;
  }

  function setMode(mode, { delayMs = 0, times } = {}) {
    if (!MODES.includes(mode)) throw new Error(`unknown stand-in mode ${mode}`);
    state.mode = mode;
    state.delayMs = delayMs;
    state.times = mode === "normal" || !times ? Infinity : times;
  }

  function reset() {
    setMode("normal");
    state.calls = [];
    state.used.clear();
    state.answered.clear();
  }

  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, resolve);
  });
  const origin = `http://${host}:${server.address().port}`;
  return {
    origin,
    scriptUrl: `${origin}/turnstile/v0/api.js`,
    verifyUrl: `${origin}/turnstile/v0/siteverify`,
    setMode,
    reset,
    calls: () => state.calls,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

/** A stand-in token is "XXXX.DUMMY.TOKEN." plus base64url JSON of what the widget was rendered with. */
function decodeToken(token) {
  const prefix = "XXXX.DUMMY.TOKEN.";
  if (!token.startsWith(prefix)) return {};
  try {
    return JSON.parse(Buffer.from(token.slice(prefix.length), "base64url").toString("utf8"));
  } catch {
    return {};
  }
}

function fail(code) {
  return { success: false, "error-codes": [code], messages: [] };
}

function json(res, status, body) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}
