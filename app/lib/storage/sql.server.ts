import sql, { raw, type Sql } from "sql-template-tag";
import type { z } from "zod";

// The one shape of SQL in Gatepost (ADR 032): sql-template-tag binds every value as `?` in order.

/** The D1 statement for `query`, its values bound in order. */
export function statement(db: D1Database, query: Sql): D1PreparedStatement {
  return db.prepare(query.sql).bind(...query.values);
}

/** Each row parsed by `schema`; a row that does not fit throws, since it can only be a bug or a bad migration. */
export function parseRows<T>(schema: z.ZodType<T>, rows: readonly unknown[]): T[] {
  return rows.map((row) => schema.parse(row));
}

/** What runBatch runs: a statement, a list, or named parts (names that are not numbers, so their order holds). */
export type BatchPart = D1PreparedStatement | null | readonly BatchPart[] | { readonly [name: string]: BatchPart };
export type BatchResult<P> = P extends null
  ? null
  : P extends D1PreparedStatement
    ? D1Result
    : P extends readonly (infer E)[]
      ? BatchResult<E>[]
      : { [K in keyof P]: BatchResult<P[K]> };

/** Runs `parts` in one D1 batch and hands each result back in the same shape and names. D1 errors throw. */
export async function runBatch<P extends BatchPart>(db: D1Database, parts: P): Promise<BatchResult<P>> {
  const statements: D1PreparedStatement[] = [];
  flatten(parts, statements);
  const results = await db.batch(statements);
  let next = 0;
  const rebuild = (part: BatchPart): unknown => {
    if (part === null) return null;
    if (isStatement(part)) return results[next++];
    if (Array.isArray(part)) return part.map(rebuild);
    return Object.fromEntries(Object.entries(part).map(([name, inner]) => [name, rebuild(inner)]));
  };
  return rebuild(parts) as BatchResult<P>;
}

/** How many statements `parts` holds: what a batch of them spends of the invocation's D1 queries. */
export function countStatements(parts: BatchPart): number {
  const statements: D1PreparedStatement[] = [];
  flatten(parts, statements);
  return statements.length;
}

function isStatement(part: BatchPart): part is D1PreparedStatement {
  return typeof (part as { bind?: unknown } | null)?.bind === "function";
}

function flatten(part: BatchPart, into: D1PreparedStatement[]): void {
  if (part === null) return;
  if (isStatement(part)) into.push(part);
  else if (Array.isArray(part)) for (const inner of part) flatten(inner, into);
  else for (const inner of Object.values(part)) flatten(inner, into);
}

/** One trivial read: throws when the binding or the database is broken (the health check). */
export async function pingDatabase(db: D1Database): Promise<void> {
  await statement(db, sql`SELECT 1`).first();
}

/** Rows one pruning DELETE takes at most (docs/decisions/060: no DELETE is unbounded). */
export const PRUNE_CHUNK = 1000;

export interface Prune {
  table: "rate_limits" | "confirmation_limits";
  where: Sql;
}

/** Deletes what each prune selects, PRUNE_CHUNK rows per table a round, one batch a round while `budget` allows. D1 errors throw. */
export async function pruneInChunks(
  db: D1Database,
  prunes: readonly Prune[],
  budget: { trySpend(cost: { d1Queries: number }): boolean },
  chunk = PRUNE_CHUNK,
): Promise<{ deleted: number; more: boolean }[]> {
  const results = prunes.map(() => ({ deleted: 0, more: false }));
  let open = prunes.map((_, i) => i);
  while (open.length > 0) {
    if (!budget.trySpend({ d1Queries: open.length })) {
      for (const i of open) results[i].more = true;
      break;
    }
    const done = await runBatch(
      db,
      open.map((i) => {
        const name = raw(prunes[i].table);
        return statement(db, sql`DELETE FROM ${name} WHERE rowid IN (SELECT rowid FROM ${name} WHERE ${prunes[i].where} LIMIT ${chunk})`);
      }),
    );
    const full: number[] = [];
    open.forEach((i, k) => {
      const changes = done[k].meta.changes ?? 0;
      results[i].deleted += changes;
      if (changes >= chunk) full.push(i);
    });
    open = full;
  }
  return results;
}
