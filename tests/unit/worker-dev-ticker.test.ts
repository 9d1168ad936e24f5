import { afterEach, describe, expect, it, vi } from "vitest";
// @ts-expect-error - plain ESM helper shared with npm start, the e2e layer and the bench
import { startTicker } from "../../scripts/worker-dev.mjs";

// npm start runs the Worker's cron on a timer. A tick that fails (the Worker reloading, a job's error)
// is reported and the timer goes on, so the scheduled work keeps running; ticks never overlap.

afterEach(() => vi.useRealTimers());

describe("the local cron ticker", () => {
  it("reports a failed tick and keeps ticking, one run at a time", async () => {
    vi.useFakeTimers();
    const outcomes: Array<string | null> = [];
    let calls = 0;
    let running = 0;
    let overlapped = false;
    const tick = async () => {
      calls += 1;
      running += 1;
      overlapped ||= running > 1;
      // The second run finds the Worker restarting; the third takes longer than the interval.
      await new Promise((resolve) => setTimeout(resolve, calls === 3 ? 2_500 : 10));
      running -= 1;
      if (calls === 2) throw new Error("fetch failed");
    };
    const ticker = startTicker(tick, 1_000, (error: Error | null) => outcomes.push(error ? error.message : null));
    await vi.advanceTimersByTimeAsync(6_100);
    ticker.stop();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(outcomes.slice(0, 3)).toEqual([null, "fetch failed", null]);
    expect(outcomes.length).toBeGreaterThanOrEqual(4);
    expect(overlapped).toBe(false);
    // Stopped means stopped.
    expect(calls).toBe(outcomes.length);
  });
});
