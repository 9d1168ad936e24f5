import sql from "sql-template-tag";
import { z } from "zod";
import { parseRows, runBatch, statement } from "~/lib/storage/sql.server";
import type { SpamModel } from "~/lib/spam/model";

// The spam model in D1 and this isolate's copy (ADR 125): a post is scored from the copy; the accept batch reads
// the model's version at no extra round trip, and a moved model is read again after the response.

/** The most features an isolate holds: the most often marked, so reading and scoring stay bounded. */
export const MAX_MODEL_TOKENS = 30_000;

const ModelRowSchema = z.object({ version: z.number(), spam_docs: z.number(), ham_docs: z.number() });
const VersionRowSchema = z.object({ version: z.number() });
const TokenRowSchema = z.object({ token: z.string(), spam: z.number(), ham: z.number() });

let copy: SpamModel | null = null;

/** The model's version and mark counts: one statement. */
export function modelRowStatement(db: D1Database): D1PreparedStatement {
  return statement(db, sql`SELECT version, spam_docs, ham_docs FROM spam_model WHERE id = 1`);
}

/** Reads the whole model (its counts and its most frequent features) in one round trip. D1 errors throw. */
export async function readSpamModel(db: D1Database): Promise<SpamModel> {
  const done = await runBatch(db, {
    model: modelRowStatement(db),
    tokens: statement(db, sql`SELECT token, spam, ham FROM spam_tokens ORDER BY spam + ham DESC LIMIT ${MAX_MODEL_TOKENS}`),
  });
  const row = parseRows(ModelRowSchema, done.model.results)[0] ?? { version: 0, spam_docs: 0, ham_docs: 0 };
  const tokens = new Map<string, readonly [number, number]>();
  for (const t of parseRows(TokenRowSchema, done.tokens.results)) tokens.set(t.token, [t.spam, t.ham]);
  return { version: row.version, spamDocs: row.spam_docs, hamDocs: row.ham_docs, tokens };
}

/** This isolate's copy of the model, read first when it has none. D1 errors throw. */
export async function currentSpamModel(db: D1Database): Promise<SpamModel> {
  copy ??= await readSpamModel(db);
  return copy;
}

/** The statement an accept batch carries to learn the model's version at no extra round trip. */
export function modelVersionStatement(db: D1Database): D1PreparedStatement {
  return statement(db, sql`SELECT version FROM spam_model WHERE id = 1`);
}

/** Reads the copy again after the response when the batch saw a newer version. Never throws: a failed read keeps the old one. */
export function refreshSpamModelIfMoved(db: D1Database, rows: readonly unknown[], waitUntil: (p: Promise<unknown>) => void): void {
  const [row] = parseRows(VersionRowSchema, rows);
  if (!row || !copy || row.version === copy.version) return;
  waitUntil(
    readSpamModel(db).then(
      (model) => {
        if (!copy || model.version > copy.version) copy = model;
      },
      (error: unknown) => console.warn("reading the moved spam model failed; the next post asks again:", error),
    ),
  );
}

/** Drops this isolate's copy, after a mark made here. */
export function forgetSpamModel(): void {
  copy = null;
}
