import { describe, expect, it } from "vitest";
// @ts-expect-error - plain ESM of the bench (bench/run.mjs renders docs/performance.md with it)
import { recentMedian, renderReport } from "../../bench/lib/report.mjs";
// @ts-expect-error - plain ESM of the bench
import { atLeast } from "../../bench/lib/targets.mjs";

// docs/performance.md judges each line on its run's median alone, and shows beside an accept line the
// median of the last five full runs in bench/results/history.jsonl (issue 50): partial runs
// (BENCH_ONLY, BENCH_RUNTIMES) and older runs are left out.

const line = (command: string, value: number | null, runtime = "miniflare") => ({
  command,
  figures: { accept: { [runtime]: value === null ? {} : { webhookRps: value } } },
});

describe("the median of the last five full runs", () => {
  it("takes the newest five full runs per runtime, skipping partial ones", () => {
    const history = [
      line("npm run bench", 0.1),
      ...[0.9, 0.7, 0.8].map((v) => line("npm run bench", v)),
      line("BENCH_ONLY=accept npm run bench", 0.01),
      line("BENCH_RUNTIMES=miniflare npm run bench", 0.01),
      line("BENCH_SKIP_BUILD=1 npm run bench", 0.85),
      line("npm run bench", 0.95),
      line("npm run bench", 0.6, "wrangler dev"),
    ];
    expect(recentMedian(history, "accept", "webhookRps")).toEqual({
      miniflare: { median: 0.85, runs: 4 },
      "wrangler dev": { median: 0.6, runs: 1 },
    });
    expect(recentMedian(history, "accept", "noSuchFigure")).toBeNull();
    expect(recentMedian([line("npm run bench", null)], "accept", "webhookRps")).toBeNull();
  });

  it("is shown beside the run's own verdict, which it does not change", () => {
    const measurement = {
      name: "accept",
      title: "Accepted posts",
      perRuntime: true,
      targets: (data: Record<string, { r: number }>) => [
        atLeast("Accept, webhook req/s", 0.8, { miniflare: data.miniflare.r }, { figure: "webhookRps" }),
      ],
      render: () => [],
    };
    const results = {
      date: "d",
      finished: "f",
      commit: "c",
      command: "npm run bench",
      host: { node: "v20", cores: 2, loadAverage: { start: [], end: [] }, pinned: null },
      opts: { rounds: 3, load: { duration: 4, connections: 10 } },
      data: { accept: { miniflare: { r: 0.79 } } },
    };
    const history = [0.9, 0.9, 0.9].map((v) => line("npm run bench", v));
    const { report } = renderReport(results, [measurement], history);
    expect(report).toContain("| Accept, webhook req/s | ≥ 0.8 | miniflare: 0.79 | **not met** | miniflare: 0.9 (3 runs) |");
  });
});
