// Load generation with autocannon, loopback only, bounded by duration. Each result keeps the raw
// numbers (requests/s, p50/p99 latency in ms, status counts, errors) so the report can show them.
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
