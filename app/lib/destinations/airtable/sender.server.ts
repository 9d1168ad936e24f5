import type { FormDef } from "~/forms/schema";
import { postAttempt, type AttemptRecord } from "~/lib/sending/attempt.server";
import { linkedFiles, type LinkedFile } from "~/lib/sending/linked-files.server";
import { defineSender, resolveApiBase, type ResolvedDestination } from "~/lib/destinations/sender.server";
import type { StoredSubmission } from "~/lib/storage/submissions.server";

// Airtable (ADR 094): one record per submission with typecast on. This isolate keeps each base's last second of
// sends and answers "try in N ms" itself rather than earn Airtable's 30-second penalty for a sixth request.

const API = "https://api.airtable.com";
export const AIRTABLE_PER_SECOND = 5;
const PENALTY_MS = 30_000;

export interface AirtableTarget extends ResolvedDestination {
  baseId: string;
  table: string;
  token: string;
  api: string;
}

const recent = new Map<string, number[]>();

/** Forgets every base's recent sends (tests). */
export function forgetAirtableSends(): void {
  recent.clear();
}

/** Takes a send slot for `baseId` at `nowMs`, or says how long until one frees. */
export function takeSlot(baseId: string, nowMs: number): { ok: true } | { ok: false; waitMs: number } {
  const kept = (recent.get(baseId) ?? []).filter((at) => at > nowMs - 1000);
  if (kept.length >= AIRTABLE_PER_SECOND) {
    recent.set(baseId, kept);
    return { ok: false, waitMs: kept[0]! + 1000 - nowMs };
  }
  recent.set(baseId, [...kept, nowMs]);
  return { ok: true };
}

/** The record's fields: the submission's id, time and version, then each form field by its name. */
export function recordFields(form: FormDef, submission: StoredSubmission, files: readonly LinkedFile[]): Record<string, unknown> {
  const fields: Record<string, unknown> = {
    Submission: submission.id,
    Received: submission.receivedAt,
    "Form version": submission.formVersion ?? "",
  };
  for (const field of form.fields) {
    const value = submission.fields[field.name];
    if (field.type === "file") {
      fields[field.name] = files
        .filter((file) => file.field === field.name)
        .map((file) => file.link?.url ?? `${file.file.name} (in the console)`)
        .join("\n");
    } else if (value !== null && value !== undefined && typeof value !== "object") {
      fields[field.name] = value;
    }
  }
  return fields;
}

/** What Airtable's refusal means, for the timeline. */
function describeRefusal(status: number): string {
  if (status === 401 || status === 403)
    return `HTTP ${status}: Airtable refused the token (its scopes must include data.records:write on this base)`;
  if (status === 404) return "HTTP 404: no such base or table (check the base id and the table's name)";
  if (status === 422) return "HTTP 422: Airtable refused the record (does each field's name match a column?)";
  return `HTTP ${status} from Airtable`;
}

/** The Airtable kind's sending half (its settings: spec.ts). */
export const sender = defineSender<AirtableTarget>({
  kind: "airtable",
  resolve(input) {
    const { own, name, variable } = input;
    const baseId = own.AIRTABLE_BASE_ID;
    if (!baseId) return { ok: false, reason: `${variable("AIRTABLE_BASE_ID")} is not set` };
    if (!own.AIRTABLE_TABLE) return { ok: false, reason: `${variable("AIRTABLE_TABLE")} is not set` };
    if (!own.AIRTABLE_TOKEN) return { ok: false, reason: `${variable("AIRTABLE_TOKEN")} is not set` };
    const api = resolveApiBase(input, "AIRTABLE_API_URL", API);
    if (!api.ok) return api;
    return {
      ok: true,
      destination: { kind: "airtable", name, baseId, table: own.AIRTABLE_TABLE, token: own.AIRTABLE_TOKEN, api: api.url },
    };
  },
  async attempt(target, { settings, form, submission, nowMs, timeoutMs, fetch }): Promise<AttemptRecord> {
    const slot = takeSlot(target.baseId, nowMs);
    if (!slot.ok) {
      const detail = `Airtable allows ${AIRTABLE_PER_SECOND} requests a second per base: tried again in ${Math.ceil(slot.waitMs / 1000)} s`;
      return { delivered: false, httpStatus: null, error: "rate_limited", detail, latencyMs: 0, excerpt: null, retryAfterMs: slot.waitMs };
    }
    const files = await linkedFiles(settings, form, submission, nowMs);
    const sent = await postAttempt({
      url: `${target.api}/v0/${encodeURIComponent(target.baseId)}/${encodeURIComponent(target.table)}`,
      headers: { "content-type": "application/json", authorization: `Bearer ${target.token}` },
      body: JSON.stringify({ records: [{ fields: recordFields(form, submission, files) }], typecast: true }),
      timeoutMs,
      fetch,
    });
    if (sent.delivered || sent.httpStatus === null) return sent;
    // Airtable's 429 carries no Retry-After: it means 30 s before the base takes calls again.
    if (sent.error === "rate_limited") return { ...sent, retryAfterMs: sent.retryAfterMs ?? PENALTY_MS };
    return { ...sent, detail: describeRefusal(sent.httpStatus) };
  },
});
