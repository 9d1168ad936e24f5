import { z } from "zod";
import { IsoDateSchema, TokenSchema } from "~/lib/console/input.server";

// The query of GET /admin/export.

const blankIsUnset = <T>(schema: z.ZodType<T>) => z.preprocess((value) => (value === "" ? undefined : value), schema);

/** /admin/export's query: a form id (blank or absent: every form), an optional existing date range, csv (the default) or json. */
export const ExportParamsSchema = z.object({
  form: blankIsUnset(TokenSchema.optional()),
  from: blankIsUnset(IsoDateSchema.optional()),
  to: blankIsUnset(IsoDateSchema.optional()),
  format: blankIsUnset(z.enum(["csv", "json"]).default("csv")),
});
export type ExportParams = z.infer<typeof ExportParamsSchema>;
