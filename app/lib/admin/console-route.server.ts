import type { AppLoadContext } from "@remix-run/cloudflare";
import { refusal } from "~/lib/http/responses.server";

// The one place a console storage failure becomes an answer: a query D1 refuses for its own reasons
// (busy, unreachable, over a limit) is thrown as 503 storage_unavailable, not a bug's 500, and logged.
// A constraint refusing a write (the caller's signal) and our own SQL mistakes pass through unchanged.

const NOT_STORAGE_TROUBLE =
  /constraint failed|SQLITE_CONSTRAINT|SQLITE_ERROR|syntax error|no such (?:table|column)|D1_TYPE_ERROR|D1_COLUMN_NOTFOUND/i;

function storageFailure(error: unknown): never {
  if (error instanceof Response || NOT_STORAGE_TROUBLE.test(String(error instanceof Error ? error.message : error))) throw error;
  console.error("console storage unavailable:", error);
  throw refusal("storage_unavailable");
}

const failing = <T>(promise: Promise<T>): Promise<T> => promise.catch(storageFailure);

/** The binding with every round trip's failure turned into the storage refusal; statements are unwrapped for batch. */
function guardedDb(db: D1Database): D1Database {
  const real = new WeakMap<object, D1PreparedStatement>();
  const statement = (stmt: D1PreparedStatement): D1PreparedStatement => {
    const guarded = new Proxy(stmt, {
      get(target, key) {
        if (key === "bind") return (...values: unknown[]) => statement(target.bind(...values));
        if (key === "first" || key === "all" || key === "run" || key === "raw") {
          return (...args: unknown[]) => failing((target[key] as (...a: unknown[]) => Promise<unknown>).apply(target, args));
        }
        const value: unknown = Reflect.get(target, key);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    real.set(guarded, stmt);
    return guarded;
  };
  return new Proxy(db, {
    get(target, key) {
      if (key === "prepare") return (query: string) => statement(target.prepare(query));
      if (key === "batch") return (stmts: D1PreparedStatement[]) => failing(target.batch(stmts.map((s) => real.get(s) ?? s)));
      if (key === "exec") return (query: string) => failing(target.exec(query));
      const value: unknown = Reflect.get(target, key);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** Wraps a console loader or action so its D1 failures throw the 503 storage_unavailable refusal. */
export function consoleRoute<A extends { context: AppLoadContext }, R>(handler: (args: A) => R | Promise<R>): (args: A) => Promise<R> {
  return async (args) => {
    const { cloudflare } = args.context;
    const env = { ...cloudflare.env, DB: guardedDb(cloudflare.env.DB) };
    return handler({ ...args, context: { ...args.context, cloudflare: { ...cloudflare, env } } });
  };
}
