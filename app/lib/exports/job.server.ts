import type { InvocationBudget, Plan } from "~/lib/platform/budget.server";
import { csvHead, csvLines, exportColumns, exportRowOf, JSON_HEAD, JSON_TAIL, jsonLines } from "~/lib/exports/format.server";
import { type ExportJob, type ExportState } from "~/lib/storage/export-jobs.server";
import { readExportKeys, readExportRows, type ExportFilter } from "~/lib/storage/submission-pages.server";

// An export built as a job into R2 (ADR 085), a step at a time within each invocation's budget: `keys` (the
// CSV's columns), `rows` (keyset pages appended to chunk objects), `compose` (chunks copied by range into one
// multipart upload). A step writes to keys derived from the saved state, so a step never saved is redone.

export interface ExportLimits {
  keysPage: number;
  rowsPage: number;
  rowsPerInvocation: number;
  partSize: number;
  partsPerInvocation: number;
}

const MIB = 1024 * 1024;
export const EXPORT_PART_SIZE = 5 * MIB;

/** Chosen, not measured: a Free invocation's 10 ms formats one page and copies one part (bench/measure/scale.mjs measures a step). */
export const EXPORT_LIMITS: Record<Plan, ExportLimits> = {
  free: { keysPage: 5000, rowsPage: 500, rowsPerInvocation: 1000, partSize: EXPORT_PART_SIZE, partsPerInvocation: 1 },
  paid: { keysPage: 5000, rowsPage: 1000, rowsPerInvocation: 50_000, partSize: EXPORT_PART_SIZE, partsPerInvocation: 20 },
};

const minChunk = (limits: ExportLimits) => Math.ceil(limits.partSize / 16);

export function chunkKey(jobId: string, index: number): string {
  return `exports/${jobId}/chunk-${String(index).padStart(6, "0")}`;
}

export function exportFileKey(jobId: string): string {
  return `exports/${jobId}/file`;
}

/** The state of a job that has not started: its defined fields fixed now, so the columns never shift. */
export function initialExportState(defined: readonly string[]): ExportState {
  return {
    phase: "keys",
    cursor: null,
    defined: [...defined],
    extra: [],
    rows: 0,
    total: 0,
    phaseFrom: 0,
    chunks: [],
    composed: { chunk: 0, offset: 0 },
    uploadId: null,
    parts: [],
    bytes: 0,
  };
}

interface StepContext {
  db: D1Database;
  bucket: R2Bucket;
  job: ExportJob;
  budget: InvocationBudget;
  limits: ExportLimits;
  spentRows: number;
  spentParts: number;
}

/** Carries the job on as far as budget and limits allow; returns its new state (not saved). D1 and R2 errors throw. */
export async function advanceExport(
  { db, bucket }: { db: D1Database; bucket: R2Bucket },
  job: ExportJob,
  budget: InvocationBudget,
  limits: ExportLimits,
): Promise<ExportState> {
  const ctx: StepContext = { db, bucket, job: { ...job, state: structuredClone(job.state) }, budget, limits, spentRows: 0, spentParts: 0 };
  while (ctx.job.state.phase !== "ready" && (await step(ctx)));
  return ctx.job.state;
}

async function step(ctx: StepContext): Promise<boolean> {
  switch (ctx.job.state.phase) {
    case "keys":
      return stepKeys(ctx);
    case "rows":
      return stepRows(ctx);
    case "compose":
      return stepCompose(ctx);
    default:
      return false;
  }
}

function filterOf(job: ExportJob): ExportFilter {
  return { formId: job.formId, from: job.from ?? undefined, to: job.to ?? undefined };
}

async function stepKeys(ctx: StepContext): Promise<boolean> {
  const { state } = ctx.job;
  if (!ctx.budget.trySpend({ d1Queries: 2 })) return false;
  const found = await readExportKeys(ctx.db, filterOf(ctx.job), state.cursor, ctx.limits.keysPage);
  const extra = new Set(state.extra);
  for (const key of found.keys) if (!state.defined.includes(key)) extra.add(key);
  state.extra = [...extra].sort();
  state.total += found.count;
  state.cursor = found.next;
  if (found.next === null) state.phase = "rows";
  return true;
}

async function stepRows(ctx: StepContext): Promise<boolean> {
  const { state } = ctx.job;
  const { rowsPage, rowsPerInvocation } = ctx.limits;
  if (ctx.spentRows + rowsPage > rowsPerInvocation && ctx.spentRows > 0) return false;
  if (!ctx.budget.trySpend({ d1Queries: 1, subrequests: state.chunks.length === 0 ? 4 : 2 })) return false;
  const columns = exportColumns(state.defined, state.extra);
  if (state.chunks.length === 0) await appendText(ctx, ctx.job.format === "csv" ? csvHead(columns) : JSON_HEAD);
  const page = await readExportRows(ctx.db, filterOf(ctx.job), state.cursor, rowsPage);
  ctx.spentRows += rowsPage;
  const rows = page.rows.map(exportRowOf);
  if (rows.length > 0) {
    await appendText(ctx, ctx.job.format === "csv" ? csvLines(columns, rows) : jsonLines(columns, rows, state.rows === 0));
  }
  state.rows += rows.length;
  state.cursor = page.next;
  if (page.next === null) {
    if (ctx.job.format === "json") {
      if (!ctx.budget.trySpend({ subrequests: 2 })) return false;
      await appendText(ctx, JSON_TAIL);
    }
    state.phase = "compose";
    state.cursor = null;
  }
  return true;
}

/** Appends `text` to the last chunk while it is small (rewriting it), else as a new chunk. */
async function appendText({ bucket, job, limits }: StepContext, text: string): Promise<void> {
  const { state } = job;
  const bytes = new TextEncoder().encode(text);
  const last = state.chunks.length - 1;
  if (last >= 0 && state.chunks[last] < minChunk(limits)) {
    // Only the bytes the saved state counts: a redone step must not find its own first try's text.
    const before = await bucket.get(chunkKey(job.id, last), { range: { offset: 0, length: state.chunks[last] } });
    if (!before) throw new Error(`export ${job.id}: chunk ${last} is missing`);
    const joined = new Uint8Array(state.chunks[last] + bytes.length);
    joined.set(new Uint8Array(await before.arrayBuffer()));
    joined.set(bytes, state.chunks[last]);
    await bucket.put(chunkKey(job.id, last), joined);
    state.chunks[last] = joined.length;
  } else {
    await bucket.put(chunkKey(job.id, last + 1), bytes);
    state.chunks.push(bytes.length);
  }
  state.bytes += bytes.length;
}

interface Range {
  chunk: number;
  offset: number;
  length: number;
}

/** The byte ranges of chunks that make the next part (`partSize` bytes, less only for the last), and where the one after starts. Pure. */
export function nextPart(state: ExportState, partSize: number): { ranges: Range[]; end: { chunk: number; offset: number } } {
  const ranges: Range[] = [];
  let { chunk, offset } = state.composed;
  let need = partSize;
  while (need > 0 && chunk < state.chunks.length) {
    const take = Math.min(state.chunks[chunk] - offset, need);
    if (take > 0) ranges.push({ chunk, offset, length: take });
    need -= take;
    offset += take;
    if (offset >= state.chunks[chunk]) {
      chunk += 1;
      offset = 0;
    }
  }
  return { ranges, end: { chunk, offset } };
}

async function stepCompose(ctx: StepContext): Promise<boolean> {
  const { bucket, job, budget, limits } = ctx;
  const { state } = job;
  const key = exportFileKey(job.id);
  if (state.uploadId === null) {
    if (!budget.trySpend({ subrequests: 1 })) return false;
    state.uploadId = (await bucket.createMultipartUpload(key)).uploadId;
    return true;
  }
  const upload = bucket.resumeMultipartUpload(key, state.uploadId);
  const { ranges, end } = nextPart(state, limits.partSize);
  if (ranges.length === 0) {
    if (!budget.trySpend({ subrequests: 1 + Math.ceil(state.chunks.length / 1000) })) return false;
    await upload.complete(state.parts);
    for (let i = 0; i < state.chunks.length; i += 1000) {
      await bucket.delete(state.chunks.slice(i, i + 1000).map((_, j) => chunkKey(job.id, i + j)));
    }
    state.phase = "ready";
    return true;
  }
  if (ctx.spentParts >= limits.partsPerInvocation || !budget.trySpend({ subrequests: ranges.length + 1 })) return false;
  const body = new Uint8Array(ranges.reduce((n, r) => n + r.length, 0));
  let at = 0;
  for (const range of ranges) {
    const object = await bucket.get(chunkKey(job.id, range.chunk), { range: { offset: range.offset, length: range.length } });
    if (!object) throw new Error(`export ${job.id}: chunk ${range.chunk} is missing`);
    body.set(new Uint8Array(await object.arrayBuffer()), at);
    at += range.length;
  }
  const partNumber = state.parts.length + 1;
  const part = await upload.uploadPart(partNumber, body);
  state.parts.push({ partNumber, etag: part.etag });
  state.composed = end;
  ctx.spentParts += 1;
  return true;
}
