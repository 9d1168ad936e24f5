import type { ReactNode } from "react";

// A console table that scrolls sideways on a narrow screen instead of widening the page. The
// scrolling box is a labelled region that takes focus, so a keyboard user can scroll it too (axe's
// scrollable-region-focusable), and the caption names the table for a screen reader.
export function ScrollTable({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="table-scroll" role="region" aria-label={label} tabIndex={0}>
      <table className="cards">
        <caption className="visually-hidden">{label}</caption>
        {children}
      </table>
    </div>
  );
}
