import { Link } from "@remix-run/react";
import type { ExportProgress } from "~/lib/exports/console.server";

// What the export's page shows (docs/decisions/109): the stage, rows done of the total, a guess at the
// time left, the download once ready, and the way back. Plain markup, so it reads the same without script.

const count = (n: number) => n.toLocaleString("en");

/** "about 3 min left", "about 40 s left"; null: no guess yet. */
export function timeLeft(seconds: number | null): string | null {
  if (seconds === null) return null;
  if (seconds < 60) return `about ${Math.max(5, Math.ceil(seconds / 5) * 5)} s left`;
  return `about ${Math.ceil(seconds / 60)} min left`;
}

function stage(p: ExportProgress): string {
  if (p.phase === "keys") return "Counting the rows";
  if (p.phase === "rows") return "Writing the rows";
  if (p.phase === "compose") return "Putting the file together";
  return "Ready";
}

export function ExportProgressView({ progress: p, fileHref }: { progress: ExportProgress; fileHref: string }) {
  const ready = p.phase === "ready";
  const left = timeLeft(p.secondsLeft);
  const rows = p.total > 0 ? `${count(p.rows)} of ${count(p.total)} rows` : `${count(p.rows)} rows so far`;
  return (
    <>
      <h1>{ready ? "Your export is ready" : "Preparing your export"}</h1>
      <div className={ready ? "notice ok" : "notice"}>
        <p role="status">
          {ready
            ? `${count(p.rows)} rows. The download starts by itself; if it does not, use the link below.`
            : `${stage(p)}: ${rows}${left ? ` (${left})` : ""}`}
        </p>
        <progress
          className="export-progress"
          aria-label="Export progress"
          max={p.total || undefined}
          value={p.phase === "keys" ? undefined : ready || p.phase === "compose" ? p.total : p.rows}
        />
        {ready ? null : <p>It goes on without this page: close it and come back, or keep it open for the file.</p>}
      </div>
      <p className="actions">
        {ready ? (
          <a href={fileHref} download>
            Download the file
          </a>
        ) : null}{" "}
        <Link to="/admin/submissions">Back to submissions</Link>
      </p>
    </>
  );
}
