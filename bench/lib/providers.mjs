// The Turnstile stand-in and the webhook sink, run in a child process of their own. In the bench's
// own process they would share one event loop with autocannon, so every webhook the sink verified
// would slow the load generator itself and count against Gatepost's figure. Loopback only; stop()
// ends the child's whole process group.
import { fileURLToPath } from "node:url";
import { spawnGroup } from "../../scripts/process-group.mjs";

const CHILD = fileURLToPath(new URL("./providers-child.mjs", import.meta.url));

/** Starts both; resolves with their URLs, reset() (both forget their history), stop() and their process group (pgid). */
export async function startProviders({ sinkSecret, timeoutMs = 20_000 }) {
  const { output, exited, stop, pid } = spawnGroup(process.execPath, [CHILD], {
    env: { ...process.env, BENCH_SINK_SECRET: sinkSecret },
  });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const line = output()
      .split("\n")
      .find((l) => l.startsWith("{"));
    if (line) {
      const urls = JSON.parse(line);
      return {
        ...urls,
        // Forgets every call, token and delivery so far: the providers' memory (and their garbage
        // collector's work) stays the same from the first load test to the last.
        reset: async () => {
          for (const url of [`${urls.standinOrigin}/__standin/reset`, `${urls.sinkControlOrigin}/reset`]) {
            const res = await fetch(url, { method: "POST" });
            if (!res.ok) throw new Error(`${url} refused a reset: ${res.status}`);
          }
        },
        stop,
        pgid: pid,
      };
    }
    if (exited() || Date.now() > deadline) {
      await stop();
      throw new Error(`the providers process did not start:\n${output()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}
