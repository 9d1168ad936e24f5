// Load generation with autocannon, loopback only, bounded by duration; loadTrial adds workerd's CPU per request.
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

/** POSTs bodies built per request by `makeBody()` (each needs its own single-use token) for `duration` seconds. */
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

/** Resolves once every server's workerd is idle (waitUntil work done), or after `timeoutMs`. */
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

/** A trial for lib/rounds.mjs: `runLoad()`, then workerd's CPU per request over the load and its after-response work. */
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
 * Before a run, GETs of the ready path refresh the pooled proxy connections: one idle about 5 s meets a post with a
 * 502 under `wrangler dev` (workers-sdk#15252, ADR 031), as rounds in turn did on 2026-11-27. Outside the measure.
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
