import type { SubmissionState } from "~/lib/storage/submission-states";

// Submissions per day over 14 days, stacked by outcome, as plain inline SVG (no chart library). The
// SVG is hidden from assistive technology; the caption and the table below it are the text alternative.
// Colours are SVG attributes and CSS classes, never style attributes, which the CSP would block.

export interface ChartDay {
  day: string;
  counts: Record<SubmissionState, number>;
}

const SERIES = [
  { key: "delivered", label: "Delivered", color: "#1e5631" },
  { key: "stored", label: "Stored (no destination)", color: "#4a5360" },
  { key: "pending", label: "Pending", color: "#8a5a00" },
  { key: "dead", label: "Dead", color: "#a4161a" },
  { key: "quarantined", label: "Quarantined", color: "#5b2a86" },
] as const satisfies ReadonlyArray<{ key: SubmissionState; label: string; color: string }>;

const WIDTH = 560;
const HEIGHT = 180;
const PAD = { top: 10, right: 10, bottom: 28, left: 34 };

export function OutcomeChart({ days }: { days: ChartDay[] }) {
  const totals = days.map((d) => SERIES.reduce((sum, s) => sum + d.counts[s.key], 0));
  const max = Math.max(1, ...totals);
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const slot = plotW / days.length;
  const barW = Math.max(4, slot * 0.7);
  const total = totals.reduce((a, b) => a + b, 0);
  return (
    <figure className="chart">
      <figcaption id="chart-caption">Submissions per day, last 14 days (UTC), by outcome: {total} in total.</figcaption>
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} width="100%" aria-hidden="true" focusable="false">
        <line x1={PAD.left} x2={WIDTH - PAD.right} y1={PAD.top + plotH} y2={PAD.top + plotH} stroke="#4a5360" />
        <text x={PAD.left - 6} y={PAD.top + 8} textAnchor="end" fontSize="11" fill="#1b1f24">
          {max}
        </text>
        <text x={PAD.left - 6} y={PAD.top + plotH} textAnchor="end" fontSize="11" fill="#1b1f24">
          0
        </text>
        {days.map((d, i) => {
          let y = PAD.top + plotH;
          const x = PAD.left + i * slot + (slot - barW) / 2;
          return (
            <g key={d.day}>
              {SERIES.map((s) => {
                const h = (d.counts[s.key] / max) * plotH;
                y -= h;
                return h > 0 ? <rect key={s.key} x={x} y={y} width={barW} height={h} fill={s.color} /> : null;
              })}
              {i % 2 === 0 ? (
                <text x={x + barW / 2} y={HEIGHT - 10} textAnchor="middle" fontSize="10" fill="#1b1f24">
                  {d.day.slice(5)}
                </text>
              ) : null}
            </g>
          );
        })}
      </svg>
      <ul className="legend" aria-hidden="true">
        {SERIES.map((s) => (
          <li key={s.key}>
            <span className={`swatch swatch-${s.key}`} /> {s.label}
          </li>
        ))}
      </ul>
      <details>
        <summary>Chart data as a table</summary>
        <table>
          <caption className="visually-hidden">Submissions per day by outcome</caption>
          <thead>
            <tr>
              <th scope="col">Day</th>
              {SERIES.map((s) => (
                <th scope="col" key={s.key}>
                  {s.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {days.map((d) => (
              <tr key={d.day}>
                <th scope="row">{d.day}</th>
                {SERIES.map((s) => (
                  <td key={s.key}>{d.counts[s.key]}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
