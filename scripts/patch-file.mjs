// In-place edits of an installed dependency's file, applied once: a marker comment makes them
// idempotent, and a file that no longer holds exactly one copy of each text to replace (an upgrade)
// is left alone. Used by the patches `npm install` applies (ADRs 008, 009 and 010).
import { readFileSync, writeFileSync } from "node:fs";

/**
 * Applies `edits` ([from, to] pairs) to `file` unless it already holds `marker`. Returns "patched",
 * "already" or "not-applicable"; throws only on I/O errors.
 */
export function applyEdits(file, marker, edits) {
  const source = readFileSync(file, "utf8");
  if (source.includes(marker)) return "already";
  if (!edits.every(([from]) => source.split(from).length === 2)) return "not-applicable";
  writeFileSync(file, edits.reduce((text, [from, to]) => text.replace(from, () => to), source));
  return "patched";
}
