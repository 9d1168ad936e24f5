// What every screen shows for an empty value, so a reader never meets "null" or a blank. Client-safe.

export const EMPTY_VALUE = "—";

/** `value` as text, or the mark when it is null, undefined, "" or only spaces. Pure. */
export function orEmptyMark(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return EMPTY_VALUE;
  const text = String(value);
  return text.trim() === "" ? EMPTY_VALUE : text;
}
