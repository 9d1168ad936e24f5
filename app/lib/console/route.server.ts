import type { AppLoadContext } from "@remix-run/cloudflare";
import { refusal } from "~/lib/http/responses.server";
import { classifyD1Failure, isReadOnlySql, withD1Retry } from "~/lib/storage/d1-failure.server";

// The one place a console storage failure becomes an answer (ADR 087): a read is retried on a transient failure;
// D1 refusing is a logged 503 storage_unavailable; constraints and our own SQL mistakes pass through.

function storageFailure(error: unknown): never {
  const kind = classifyD1Failure(error);
  if (error instanceof Response || kind === "constraint" || kind === "bug") throw error;
  console.error("console storage unavailable:", error);
  throw refusal("storage_unavailable");
}

/** Runs one round trip; a read-only one is retried on a transient failure (a write may have committed). */
const failing = <T>(run: () => Promise<T>, readOnly: boolean): Promise<T> => (readOnly ? withD1Retry(run) : run()).catch(storageFailure);

/** The binding with every round trip's failure turned into the storage refusal; statements are unwrapped for batch. */
function guardedDb(db: D1Database): D1Database {
  const real = new WeakMap<object, { stmt: D1PreparedStatement; readOnly: boolean }>();
  const statement = (stmt: D1PreparedStatement, readOnly: boolean): D1PreparedStatement => {
    const guarded = new Proxy(stmt, {
      get(target, key) {
        if (key === "bind") return (...values: unknown[]) => statement(target.bind(...values), readOnly);
        if (key === "first" || key === "all" || key === "run" || key === "raw") {
          return (...args: unknown[]) =>
            failing(() => (target[key] as (...a: unknown[]) => Promise<unknown>).apply(target, args), readOnly);
        }
        const value: unknown = Reflect.get(target, key);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    real.set(guarded, { stmt, readOnly });
    return guarded;
  };
  return new Proxy(db, {
    get(target, key) {
      if (key === "prepare") return (query: string) => statement(target.prepare(query), isReadOnlySql(query));
      if (key === "batch") {
        return (stmts: D1PreparedStatement[]) => {
          const unwrapped = stmts.map((s) => real.get(s) ?? { stmt: s, readOnly: false });
          return failing(
            () => target.batch(unwrapped.map((u) => u.stmt)),
            unwrapped.every((u) => u.readOnly),
          );
        };
      }
      if (key === "exec") return (query: string) => failing(() => target.exec(query), false);
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
