// A target's verdict from this run's figures only: "not met" when a figure misses it, "not measured"
// when a figure is missing (a runtime that failed), "met" when every figure meets it.

function verdictOf(measured, meets) {
  const values = Object.values(measured);
  if (values.some((v) => v !== null && v !== undefined && !meets(v))) return "not met";
  if (values.length === 0 || values.some((v) => v === null || v === undefined)) return "not measured";
  return "met";
}

/**
 * A target that every value of `measured` ({ where: value }) must reach: at least `min`. `figure`, the
 * key of the same value in the module's summary (its line in history.jsonl), lets the report show the
 * median of the last full runs beside this run's (lib/report.mjs).
 */
export function atLeast(name, min, measured, { figure } = {}) {
  return { name, asks: `≥ ${min}`, measured, verdict: verdictOf(measured, (v) => v >= min), ...(figure ? { figure } : {}) };
}

/** The same, where every value must stay at or under `max`. */
export function atMost(name, max, measured, unit = "") {
  return { name, asks: `≤ ${max}${unit}`, measured, verdict: verdictOf(measured, (v) => v <= max) };
}

/** { runtime: data } → { runtime: pick(data) }, null for a runtime whose measurement failed. */
export function byRuntime(data, pick) {
  return Object.fromEntries(Object.entries(data).map(([runtime, d]) => [runtime, d.failed ? null : pick(d)]));
}
