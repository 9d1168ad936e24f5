import { z } from "zod";
import { IsoDateSchema, TokenSchema } from "~/lib/console/input.server";
import { readSearchWords } from "~/lib/storage/search-text.server";
import type { SubmissionFilter } from "~/lib/storage/submission-list.server";
import { FILTER_STATES } from "~/lib/storage/submission-states";

// The list's query string: a bad value is dropped, never an error, except a search of too many words, which
// cutting would turn into a search nobody typed.

const optionalFilter = <T>(schema: z.ZodType<T>) => schema.optional().catch(undefined);

export const ListFiltersSchema = z.object({
  form: optionalFilter(TokenSchema),
  status: optionalFilter(z.enum(FILTER_STATES)),
  from: optionalFilter(IsoDateSchema),
  to: optionalFilter(IsoDateSchema),
  q: optionalFilter(z.string().transform((q) => q.trim().slice(0, 200) || undefined)),
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
