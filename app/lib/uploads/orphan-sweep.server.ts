import sql from "sql-template-tag";
import { z } from "zod";
import { deleteFileObjects, FILE_KEY_PREFIX, fileKey } from "~/lib/storage/file-objects.server";
import { parseRows, statement } from "~/lib/storage/sql.server";

// The scheduled sweep for uploaded files whose submission was never stored: a post whose Worker
// stopped between its R2 puts and its D1 batch, or whose clean-up after a refused batch failed
// (docs/decisions/052). Keys are `files/<UUIDv7>`, so R2 lists them in the order they were written;
// each run goes on from the last key it judged (kept in maintenance_cursors), judges only objects
// older than a grace period (a post still between its two writes is not an orphan yet), asks D1
// which of their submissions exist, and deletes the rest. Each object is judged once.

/** Longer than any post takes from its R2 puts to its D1 batch, by far. */
export const SWEEP_GRACE_MS = 15 * 60_000;
const CURSOR = "orphan-sweep";
/** R2 lists at most 1,000 keys per call; a run stops after this many calls and goes on next time. */
const MAX_PAGES = 10;

export interface SweepReport {
  /** Objects old enough to judge that this run looked at. */
  judged: number;
  /** Of those, the ones deleted because their submission does not exist. */
  removed: number;
}

const CursorRowSchema = z.object({ value: z.string() });
const IdRowSchema = z.object({ id: z.string() });

/** The smallest key of a file made at `ms` or later: the UUIDv7 time field is its first 12 hex digits. */
function keyFloorAt(ms: number): string {
  const hex = Math.max(0, Math.floor(ms)).toString(16).padStart(12, "0");
  return fileKey(`${hex.slice(0, 8)}-${hex.slice(8)}-`);
}

/**
 * Deletes the objects under files/ older than the grace period whose submission is not in D1, going
 * on from where the last run stopped. A run without a bucket does nothing. D1 and R2 errors throw.
 */
export async function sweepOrphanedFiles(
  db: D1Database,
  bucket: R2Bucket | null,
  nowMs: number,
  { maxPages = MAX_PAGES }: { maxPages?: number } = {},
): Promise<SweepReport> {
  const report: SweepReport = { judged: 0, removed: 0 };
  if (!bucket) return report;
  const stored = await statement(db, sql`SELECT value FROM maintenance_cursors WHERE name = ${CURSOR}`).all();
  let after = parseRows(CursorRowSchema, stored.results)[0]?.value ?? FILE_KEY_PREFIX;
  const start = after;
  const youngFrom = keyFloorAt(nowMs - SWEEP_GRACE_MS);
  for (let page = 0; page < maxPages; page++) {
    // `include` is honoured at the Worker's compatibility date; the oldest workers-types entry point,
    // which tsconfig uses, does not list it.
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
    // An object that names no submission is not Gatepost's doing: it is left alone, not guessed at.
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
      sql`INSERT INTO maintenance_cursors (name, value) VALUES (${CURSOR}, ${after})
        ON CONFLICT (name) DO UPDATE SET value = max(value, excluded.value)`,
    ).run();
  }
  return report;
}
