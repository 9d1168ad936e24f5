import { describe, expect, it } from "vitest";
// @ts-expect-error - plain ESM of the bench (bench/measure/lighthouse.mjs uses it on real runs)
import * as verdict from "../../bench/lib/lighthouse-verdict.mjs";

// The bench's Lighthouse step must not report a score a slow host caused, and must still fail a page
// that really got slower. Each run here is what the step reads from Lighthouse's report.

const { judgePage, judgeTarget, MAX_OTHER_PERCENT, MAX_TRIES, MIN_BENCHMARK_INDEX, runCounted } = verdict;

type Run = { benchmarkIndex: number; otherPercent: number; scores: Record<string, number> };

const perfect = { performance: 100, accessibility: 100, "best-practices": 100, seo: 100 };
const run = (benchmarkIndex: number, performance = 100, otherPercent = 2): Run => ({
  benchmarkIndex,
  otherPercent,
  scores: { ...perfect, performance },
});
/** A runOnce that hands out `runs` in order and counts how often it was called. */
function runner(runs: Run[]) {
  const calls = { n: 0 };
  return { calls, runOnce: async () => runs[calls.n++] };
}

describe("the bench's Lighthouse verdict", () => {
  it("does not count a run on a slow host and tries again", async () => {
    const { calls, runOnce } = runner([run(MIN_BENCHMARK_INDEX - 300, 85), run(MIN_BENCHMARK_INDEX + 200)]);
    const slowSeen: string[] = [];
    const result = await runCounted(runOnce, { onSlow: (why: string) => slowSeen.push(why) });
    expect(calls.n).toBe(2);
    expect(result.run.scores.performance).toBe(100);
    expect(result.slow).toEqual([`index ${MIN_BENCHMARK_INDEX - 300} < ${MIN_BENCHMARK_INDEX}`]);
    expect(slowSeen).toEqual(result.slow);
  });

  it("does not count a run during which other processes took the CPU, whatever the index said before it", async () => {
    const busy = run(MIN_BENCHMARK_INDEX + 300, 89, MAX_OTHER_PERCENT + 40);
    const { calls, runOnce } = runner([busy, run(MIN_BENCHMARK_INDEX + 300, 100, MAX_OTHER_PERCENT)]);
    const result = await runCounted(runOnce);
    expect(calls.n).toBe(2);
    expect(result.run.scores.performance).toBe(100);
    expect(result.slow).toEqual([`other load ${MAX_OTHER_PERCENT + 40} % > ${MAX_OTHER_PERCENT} %`]);
  });

  it("stops after its tries and reports the host, not a score", async () => {
    const { calls, runOnce } = runner(
      Array.from({ length: MAX_TRIES + 2 }, (_, i) => run(MIN_BENCHMARK_INDEX - 1 + (i % 2) * 500, 70, 80 * (i % 2))),
    );
    const result = await runCounted(runOnce);
    expect(calls.n).toBe(MAX_TRIES);
    expect(result.run).toBeNull();
    expect(result.slow).toHaveLength(MAX_TRIES);
    const page = judgePage([result]);
    expect(page.verdict).toBe("host too slow");
    expect(judgeTarget([page], null)).toBe("not measured");
  });

  it("fails a page that scores below 100 on a fast enough host, without retrying it", async () => {
    const { calls, runOnce } = runner([run(MIN_BENCHMARK_INDEX + 400, 78), run(MIN_BENCHMARK_INDEX + 400, 100)]);
    const rounds = [await runCounted(runOnce), await runCounted(runOnce)];
    expect(calls.n).toBe(2);
    const page = judgePage([...rounds, { run: run(MIN_BENCHMARK_INDEX, 80), slow: [] }]);
    expect(page.median.performance).toBe(80);
    expect(page.verdict).toBe("below 100");
    const trial = judgePage([{ run: run(MIN_BENCHMARK_INDEX, 79), slow: [] }]);
    expect(judgeTarget([judgePage([{ run: run(1800), slow: [] }]), page], trial)).toBe("not met");
  });

  it("is met only when every page scores 100 and the injected regression was seen", () => {
    const good = judgePage([{ run: run(1800), slow: [] }]);
    const caught = judgePage([{ run: run(1800, 79), slow: [] }]);
    const missed = judgePage([{ run: run(1800, 100), slow: [] }]);
    expect(judgeTarget([good, good], caught)).toBe("met");
    expect(judgeTarget([good, good], missed)).toBe("not measured");
  });
});
