import { z } from "zod";
import { IsoDateSchema, TokenSchema } from "~/lib/console/input.server";
import { readSearchWords } from "~/lib/storage/search-text.server";
import type { SubmissionFilter } from "~/lib/storage/submission-list.server";
import { FILTER_STATES } from "~/lib/storage/submission-states";

// The submissions list's query string, read into a filter and a cursor. A bad value is dropped (that
// filter keeps its default), never an error: a pasted or hand-edited URL still shows a list. A search
// of too many words is the exception: cutting it would show matches for a search nobody typed.

/** One filter value: a bad one is dropped, never an error. */
const optionalFilter = <T>(schema: z.ZodType<T>) => schema.optional().catch(undefined);

export const ListFiltersSchema = z.object({
  form: optionalFilter(TokenSchema),
  status: optionalFilter(z.enum(FILTER_STATES)),
  from: optionalFilter(IsoDateSchema),
  to: optionalFilter(IsoDateSchema),
  q: optionalFilter(z.string().transform((q) => q.trim().slice(0, 200) || undefined)),
  // Opaque (storage/submission-list.server.ts decodes it, and starts at the top when it cannot).
  cursor: optionalFilter(z.string().max(400)),
}) satisfies z.ZodType<SubmissionFilter & { cursor?: string }>;

export interface ListQuery {
  filter: SubmissionFilter;
  cursor: string | null;
  /** Set when the search has more words than one search takes: the list answers 400 with its message. */
  refused: "search_too_many_words" | null;
}

/** Reads the list's filter and cursor from a query string, dropping anything malformed; a too long search is `refused`. Never throws. */
export function parseListFilters(params: URLSearchParams): ListQuery {
  const first: Record<string, string> = {};
  for (const key of ["form", "status", "from", "to", "q", "cursor"]) {
    const value = params.get(key);
    if (value !== null) first[key] = value;
  }
  const { cursor, ...parsed } = ListFiltersSchema.parse(first);
  // Only the filters that are set, so a filter object compares and serialises without undefined keys.
  const filter = Object.fromEntries(Object.entries(parsed).filter(([, value]) => value !== undefined)) as SubmissionFilter;
  const search = filter.q ? readSearchWords(filter.q) : null;
  return { filter, cursor: cursor ?? null, refused: search && !search.ok ? search.code : null };
}
