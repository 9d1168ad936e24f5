import { z } from "zod";
import { IsoDateSchema, TokenSchema } from "~/lib/admin/input.server";
import type { ListFilters } from "~/lib/storage/console-queries.server";
import { FILTER_STATES } from "~/lib/storage/submission-states";

// The submissions list's query string, read into filters. A bad value is dropped (that filter keeps its
// default), never an error: a pasted or hand-edited URL still shows a list.

/** One filter value: a bad one is dropped, never an error. */
const optionalFilter = <T>(schema: z.ZodType<T>) => schema.optional().catch(undefined);

export const ListFiltersSchema = z
  .object({
    form: optionalFilter(TokenSchema),
    status: optionalFilter(z.enum(FILTER_STATES)),
    from: optionalFilter(IsoDateSchema),
    to: optionalFilter(IsoDateSchema),
    q: optionalFilter(z.string().transform((q) => q.trim().slice(0, 200) || undefined)),
    page: z
      .string()
      .regex(/^\d{1,9}$/)
      .transform((page) => Math.min(Math.max(Number(page), 1), 10_000))
      .catch(1),
  })
  .transform(({ form, status, page, ...rest }): ListFilters => ({ formId: form, state: status, ...rest, page }));

/** Reads list filters from a query string, dropping anything malformed instead of failing. Never throws. */
export function parseListFilters(params: URLSearchParams): ListFilters {
  const first: Record<string, string> = {};
  for (const key of ["form", "status", "from", "to", "q", "page"]) {
    const value = params.get(key);
    if (value !== null) first[key] = value;
  }
  return ListFiltersSchema.parse(first);
}
