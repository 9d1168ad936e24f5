import type { FieldDef } from "~/forms/schema";
import type { FieldTexts } from "~/lib/i18n/messages/types";
import { fill } from "~/lib/text/fill";
import { fileLimitsOf, formatBytes, typeLabels } from "~/lib/uploads/file-types";

/** A file field's limits as a person reads them ("A PDF file of up to 10 MB."), in the page's language. Client-safe. */
export function fileLimitsText(field: FieldDef, { lang, page }: FieldTexts): string {
  const limits = fileLimitsOf(field);
  const vars = { count: limits.maxFiles, types: typeLabels(limits.types, lang), size: formatBytes(limits.maxBytes) };
  return fill(limits.maxFiles > 1 ? page.fileLimitsMany : page.fileLimitsOne, vars, lang);
}
