import { z } from "zod";
import type { StoredFile } from "~/forms/schema";
import { IsoDateSchema, TokenSchema } from "~/lib/console/input.server";
import { apiRefusal } from "~/lib/auth/api-auth.server";
import type { loadSubmissionDetail } from "~/lib/storage/console-queries.server";
import { filesOf } from "~/lib/storage/file-objects.server";
import { readSearchWords } from "~/lib/storage/search-text.server";
import { isListCursor, type ListedSubmission, type SubmissionFilter } from "~/lib/storage/submission-list.server";
import { FILTER_STATES } from "~/lib/storage/submission-states";

// The admin API's submission reads (docs/api.md): its query read strictly (a typo is a 400), and the JSON shapes.

export const API_PAGE_DEFAULT = 25;
export const API_PAGE_MAX = 100;

const QuerySchema = z.object({
  form: TokenSchema.optional(),
  status: z.enum(FILTER_STATES).optional(),
  from: IsoDateSchema.optional(),
  to: IsoDateSchema.optional(),
  q: z
    .string()
    .max(200)
    .transform((q) => q.trim() || undefined)
    .optional(),
  cursor: z.string().optional(),
  limit: z
    .string()
    .regex(/^\d{1,3}$/)
    .transform(Number)
    .pipe(z.number().int().min(1).max(API_PAGE_MAX))
    .optional(),
});

export interface ApiListQuery {
  filter: SubmissionFilter;
  cursor: string | null;
  limit: number;
}

/** The list's query; throws a 400 problem: admin_bad_request for an unknown filter value or cursor, search_too_many_words. */
export function readApiListQuery(values: Record<string, string>): ApiListQuery {
  const parsed = QuerySchema.safeParse(values);
  if (!parsed.success) throw apiRefusal("admin_bad_request");
  const { form, status, from, to, q, cursor, limit } = parsed.data;
  if (cursor !== undefined && !isListCursor(cursor, Boolean(q))) throw apiRefusal("admin_bad_request");
  const search = q ? readSearchWords(q) : null;
  if (search && !search.ok) throw apiRefusal(search.code, { words: search.count });
  return { filter: { form, status, from, to, q }, cursor: cursor ?? null, limit: limit ?? API_PAGE_DEFAULT };
}

/** A submission as the list shows it. */
export function listedJson({ submission: s, state }: ListedSubmission) {
  return {
    id: s.id,
    form: s.formId,
    version: s.formVersion,
    receivedAt: s.receivedAt,
    state,
    test: s.test,
    fields: s.fields,
  };
}

/** `{"items": [...], "cursor": …}`, `unsearched` when the search index has not taken newer submissions yet (ADR 101). */
export function pageJson(page: { items: ListedSubmission[]; next: string | null; unsearched?: boolean }) {
  const json = { items: page.items.map(listedJson), cursor: page.next };
  return page.unsearched ? { ...json, unsearched: true } : json;
}

type Detail = NonNullable<Awaited<ReturnType<typeof loadSubmissionDetail>>>;

/** One submission with its verification, files and deliveries (each with its attempts). */
export function detailJson(detail: Detail) {
  const s = detail.submission;
  const files: Array<StoredFile & { field: string }> = Object.entries(s.fields).flatMap(([field, value]) =>
    filesOf(value).map((file) => ({ field, ...file })),
  );
  return {
    ...listedJson(detail),
    quarantineReason: s.quarantineReason,
    verification: s.verification,
    files,
    deliveries: detail.deliveries.map((d) => ({
      id: d.id,
      destination: d.destination,
      status: d.status,
      attempts: d.attempts,
      lastError: d.lastError,
      createdAt: d.createdAt,
      deliveredAt: d.deliveredAt,
    })),
  };
}
