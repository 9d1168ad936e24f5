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
 * `freshen`, the run's connections, is for posts in rounds run in turn (freshenProxyConnections).
 */
export function loadTrial(server, runLoad, { freshen = 0 } = {}) {
  return async () => {
    if (freshen > 0 && server.runtime === "wrangler dev") await freshenProxyConnections(server, freshen);
    const before = server.cpuMs();
    const load = await runLoad();
    await waitQuiet([server]);
    return { ...load, cpuMs: load.requests > 0 ? (server.cpuMs() - before) / load.requests : null };
  };
}

/**
 * Under `wrangler dev` a load run's first posts can meet a proxy-to-Worker connection left idle for
 * about 5 s, just as kj's client pool and the Worker's HTTP server both close it (workers-sdk #15252):
 * the proxy answers such a post 502 (our patch, ADR 031) and the measurement fails. Rounds in turn can
 * leave a server that long between its runs (the accept bench's reference server waits through the
 * webhook subject's two runs, the last of one round and the first of the next: it failed so on
 * 2026-11-27). So before each run, twice its connections of GETs of the ready path (retried by the
 * proxy, ADR 021) leave every pooled connection just used. Outside the measured window: CPU is read
 * after they are answered.
 */
async function freshenProxyConnections(server, connections) {
  const url = `${server.url}${server.readyPath ?? "/"}`;
  await Promise.all(
    Array.from({ length: 2 * connections }, async () => {
      const res = await fetch(url, { redirect: "manual" }).catch(() => null);
      await res?.arrayBuffer();
    }),
  );
}
