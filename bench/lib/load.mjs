// Load generation with autocannon, loopback only, bounded by duration. Each result keeps the raw
// numbers (requests/s, p50/p99 latency in ms, status counts, errors) and, through loadTrial, the CPU
// the app's workerd spent per request.
import autocannon from "autocannon";

function summarize(result) {
  return {
    rps: Math.round(result.requests.average * 10) / 10,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, s]) => [code, s.count])),
    errors: result.errors,
    timeouts: result.timeouts,
  };
}

/** GETs `url` for `duration` seconds over `connections` connections. */
export async function loadGet(url, { duration = 10, connections = 10 } = {}) {
  return summarize(await autocannon({ url, duration, connections, timeout: 10 }));
}

/**
 * POSTs form bodies built per request by `makeBody()` (each needs its own single-use captcha token)
 * to `url` for `duration` seconds. `headers` are sent with every request.
 */
export async function loadPost(url, makeBody, { duration = 10, connections = 10, headers = {} } = {}) {
  const result = await autocannon({
    url,
    duration,
    connections,
    timeout: 10,
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    requests: [{ setupRequest: (request) => ({ ...request, body: makeBody() }) }],
  });
  return summarize(result);
}

/** Warms a server up with a few sequential requests, so JIT and first-request setup are not measured. */
export async function warmUp(url, init = {}, count = 20) {
  for (let i = 0; i < count; i++) {
    const res = await fetch(url, { redirect: "manual", ...(typeof init === "function" ? init() : init) });
    await res.arrayBuffer();
  }
}

/**
 * Resolves once every server's workerd has used at most `idleMs` of CPU over `stepMs` (work left in
 * waitUntil, such as first webhook deliveries, is done), or after `timeoutMs`.
 */
export async function waitQuiet(servers, { stepMs = 250, idleMs = 20, timeoutMs = 10_000 } = {}) {
  const deadline = Date.now() + timeoutMs;
  let last = servers.map((s) => s.cpuMs());
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, stepMs));
    const now = servers.map((s) => s.cpuMs());
    const busy = now.some((ms, i) => ms - last[i] > idleMs);
    last = now;
    if (!busy) return;
  }
}

/**
 * A trial for lib/rounds.mjs: `runLoad()` against `server`, then its workerd's CPU per completed
 * request over the load and the after-response work it left (counted until the server is quiet).
 */
export function loadTrial(server, runLoad) {
  return async () => {
    const before = server.cpuMs();
    const load = await runLoad();
    await waitQuiet([server]);
    return { ...load, cpuMs: load.requests > 0 ? (server.cpuMs() - before) / load.requests : null };
  };
}
