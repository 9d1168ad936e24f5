import type { FieldType } from "~/forms/schema";

// Which settings each field type owns: the editor shows only these, and reads only these from a post,
// so a setting in view is one the form enforces and nothing hidden rides along. Client-safe.

export type FieldSetting = "hint" | "length" | "pattern" | "autocomplete" | "range" | "options" | "files";

const WRITTEN: readonly FieldSetting[] = ["hint", "length", "pattern", "autocomplete"];

export const FIELD_SETTINGS: Readonly<Record<FieldType, readonly FieldSetting[]>> = {
  text: WRITTEN,
  email: WRITTEN,
  url: WRITTEN,
  textarea: WRITTEN,
  // Never shown to a visitor: no hint or autocomplete, but its value is still checked.
  hidden: ["length", "pattern"],
  number: ["hint", "range", "autocomplete"],
  select: ["hint", "options", "autocomplete"],
  checkbox: ["hint"],
  file: ["hint", "files"],
};

/** Whether fields of `type` have `setting`. */
export function hasSetting(type: FieldType, setting: FieldSetting): boolean {
  return FIELD_SETTINGS[type].includes(setting);
}
