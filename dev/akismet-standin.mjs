// A local stand-in for Akismet's REST API (comment-check, submit-spam, submit-ham), for the tests, the
// bench and `npm start` with AKISMET_API_URL pointed here. It answers as Akismet documents: "true" for
// the author "viagra-test-123" or the address "akismet-guaranteed-spam@example.com", "false" otherwise,
// "invalid" for a wrong key. Modes make it slow (past the app's timeout) or fail. Loopback only.
import { createServer } from "node:http";

export const AKISMET_STANDIN_KEY = "standin-akismet-key";
export const MODES = ["normal", "slow", "http500"];

export async function startAkismetStandin({ port = 0, host = "127.0.0.1", key = AKISMET_STANDIN_KEY } = {}) {
  const state = { mode: "normal", delayMs: 3_000, calls: [] };
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, "http://standin");
    const body = await readBody(req);
    const reply = (status, text) => {
      res.writeHead(status, { "content-type": "text/plain; charset=utf-8" });
      res.end(text);
    };
    if (req.method === "POST" && url.pathname === "/__akismet/mode") {
      const options = JSON.parse(body || "{}");
      if (!MODES.includes(options.mode)) return reply(400, "unknown mode");
      state.mode = options.mode;
      state.delayMs = options.delayMs ?? 3_000;
      return reply(200, state.mode);
    }
    if (req.method === "POST" && url.pathname === "/__akismet/reset") {
      Object.assign(state, { mode: "normal", delayMs: 3_000, calls: [] });
      return reply(200, "ok");
    }
    if (req.method === "GET" && url.pathname === "/__akismet/calls") {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(JSON.stringify(state.calls));
    }
    const method = /^\/1\.1\/(comment-check|submit-spam|submit-ham)$/.exec(url.pathname)?.[1];
    if (req.method !== "POST" || !method) return reply(404, "not found");
    const params = Object.fromEntries(new URLSearchParams(body));
    state.calls.push({ method, params });
    if (state.mode === "slow") await new Promise((resolve) => setTimeout(resolve, state.delayMs));
    if (state.mode === "http500") return reply(500, "server error");
    if (params.api_key !== key) {
      res.setHeader("X-akismet-debug-help", "Invalid API key.");
      return reply(200, "invalid");
    }
    if (method !== "comment-check") return reply(200, "Thanks for making the web a better place.");
    const spam = params.comment_author === "viagra-test-123" || params.comment_author_email === "akismet-guaranteed-spam@example.com";
    return reply(200, spam ? "true" : "false");
  });
  await new Promise((resolve) => server.listen(port, host, resolve));
  const { port: bound } = server.address();
  const origin = `http://${host}:${bound}`;
  return {
    origin,
    url: `${origin}/1.1`,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on("data", (chunk) => {
      size += chunk.length;
      if (size <= 1_000_000) chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}
