import { ScrollTable } from "~/components/admin/scroll-table";

// Quarantined submissions per UTC day and reason (docs/forms.md#spam), so an owner sees what the
// rules, the filter, Akismet and the bot traps hold back, and when.

const REASONS: Record<string, string> = {
  spam_rule: "A spam rule",
  spam_filter: "The learning filter",
  spam_akismet: "Akismet",
  spam_marked: "Marked as spam",
  honeypot_filled: "Honeypot filled",
  timestamp_missing: "No form stamp",
  timestamp_forged: "Forged form stamp",
  timestamp_too_fast: "Sent too fast",
};

export function QuarantineReasons({ rows }: { rows: ReadonlyArray<{ day: string; reason: string; n: number }> }) {
  if (rows.length === 0) return <p>Nothing was quarantined in the last 14 days.</p>;
  return (
    <ScrollTable label="Quarantined submissions per day and reason">
      <thead>
        <tr>
          <th scope="col">Day (UTC)</th>
          <th scope="col">Reason</th>
          <th scope="col">Quarantined</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={`${row.day} ${row.reason}`}>
            <td data-label="Day (UTC)">{row.day}</td>
            <td data-label="Reason">{REASONS[row.reason] ?? row.reason}</td>
            <td data-label="Quarantined">{row.n}</td>
          </tr>
        ))}
      </tbody>
    </ScrollTable>
  );
}
