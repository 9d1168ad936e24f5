import type { ReactNode } from "react";

// A console table that scrolls sideways on a narrow screen, in a focusable labelled region (axe's scrollable-region-focusable).
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
