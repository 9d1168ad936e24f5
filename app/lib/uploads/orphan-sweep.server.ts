import sql from "sql-template-tag";
import { z } from "zod";
import { deleteFileObjects, FILE_KEY_PREFIX, fileKey } from "~/lib/storage/file-objects.server";
import type { InvocationBudget } from "~/lib/platform/budget.server";
import { parseRows, statement } from "~/lib/storage/sql.server";

// Removes uploaded files whose submission was never stored, walking time-ordered keys from a cursor (ADR 052).

/** Longer than any post takes from its R2 puts to its D1 batch, by far. */
export const SWEEP_GRACE_MS = 15 * 60_000;
export const ORPHAN_SWEEP_CURSOR = "orphan-sweep";
/** R2 lists at most 1,000 keys per call; a run stops after this many calls and goes on next time. */
const MAX_PAGES = 10;

export interface SweepReport {
  judged: number;
  removed: number;
}

const CursorRowSchema = z.object({ value: z.string() });
const IdRowSchema = z.object({ id: z.string() });

/** The smallest key of a file made at `ms` or later: the UUIDv7 time field is its first 12 hex digits. */
function keyFloorAt(ms: number): string {
  const hex = Math.max(0, Math.floor(ms)).toString(16).padStart(12, "0");
  return fileKey(`${hex.slice(0, 8)}-${hex.slice(8)}-`);
}

/** Deletes old objects whose submission is not in D1, from where the last run stopped. D1 and R2 errors throw. */
export async function sweepOrphanedFiles(
  db: D1Database,
  bucket: R2Bucket | null,
  nowMs: number,
  {
    maxPages = MAX_PAGES,
    budget,
    cursor,
  }: {
    maxPages?: number;
    budget?: InvocationBudget;
    cursor?: string | null;
  } = {},
): Promise<SweepReport> {
  const report: SweepReport = { judged: 0, removed: 0 };
  if (!bucket) return report;
  const kept =
    cursor !== undefined
      ? cursor
      : (parseRows(
          CursorRowSchema,
          (await statement(db, sql`SELECT value FROM maintenance_cursors WHERE name = ${ORPHAN_SWEEP_CURSOR}`).all()).results,
        )[0]?.value ?? null);
  let after = kept ?? FILE_KEY_PREFIX;
  const start = after;
  const youngFrom = keyFloorAt(nowMs - SWEEP_GRACE_MS);
  for (let page = 0; page < maxPages && (budget?.trySpend({ d1Queries: 1, subrequests: 2 }) ?? true); page++) {
    // `include` works at the Worker's compatibility date; tsconfig's workers-types entry omits it.
    const options = { prefix: FILE_KEY_PREFIX, startAfter: after, limit: 1000, include: ["customMetadata"] };
    const listed = await bucket.list(options as R2ListOptions);
    const old = listed.objects.filter((object) => object.key < youngFrom);
    if (old.length === 0) break;
    const owners = [...new Set(old.flatMap((object) => object.customMetadata?.submission ?? []))];
    const found = await statement(
      db,
      sql`SELECT id FROM submissions WHERE id IN (SELECT value FROM json_each(${JSON.stringify(owners)}))`,
    ).all();
    const existing = new Set(parseRows(IdRowSchema, found.results).map((row) => row.id));
    // An object that names no submission is not Gatepost's: left alone.
    const orphans = old.filter((object) => {
      const owner = object.customMetadata?.submission;
      return owner !== undefined && !existing.has(owner);
    });
    await deleteFileObjects(
      bucket,
      orphans.map((object) => object.key.slice(FILE_KEY_PREFIX.length)),
    );
    report.judged += old.length;
    report.removed += orphans.length;
    after = old[old.length - 1].key;
    if (old.length < listed.objects.length || !listed.truncated) break;
  }
  if (after !== start) {
    await statement(
      db,
      sql`INSERT INTO maintenance_cursors (name, value) VALUES (${ORPHAN_SWEEP_CURSOR}, ${after})
        ON CONFLICT (name) DO UPDATE SET value = max(value, excluded.value)`,
    ).run();
  }
  return report;
}
