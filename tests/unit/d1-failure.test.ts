import { describe, expect, it } from "vitest";
import { budgetFor } from "~/lib/platform/budget.server";
import { classifyD1Failure, isConstraintFailure, isReadOnlySql, storageCodeOf, tryD1, withD1Retry } from "~/lib/storage/d1-failure.server";
import { expectConsoleErrors } from "../support/fail-on-console";

// The one rule for D1 failures: what each of the platform's messages means, and how retries are spent.

const noWait = async () => {};

describe("classifyD1Failure", () => {
  it.each([
    // Cloudflare's D1 error list, "Recommended action: retry".
    ["D1_ERROR: D1 DB reset because its code was updated.", "transient"],
    ["D1_ERROR: Internal error while starting up D1 DB storage caused object to be reset.", "transient"],
    ["D1_ERROR: Internal error in D1 DB storage caused object to be reset.", "transient"],
    ["D1_ERROR: Network connection lost.", "transient"],
    ["D1_ERROR: Cannot resolve D1 DB due to transient issue on remote node.", "transient"],
    ["D1_ERROR: D1 DB's isolate exceeded its memory limit and was reset.", "transient"],
    ["D1_ERROR: D1 DB is overloaded. Requests queued for too long.", "transient"],
    // Less load, not more: no retry.
    ["D1_ERROR: D1 DB is overloaded. Too many requests queued.", "unavailable"],
    ["D1_ERROR: D1 DB storage operation exceeded timeout which caused object to be reset.", "unavailable"],
    ["D1_ERROR: Exceeded maximum DB size.", "unavailable"],
    ["D1_ERROR: database is locked: SQLITE_BUSY", "unavailable"],
    ["Too many API requests by single worker invocation.", "unavailable"],
    ["D1_ERROR: UNIQUE constraint failed: submissions.id: SQLITE_CONSTRAINT", "constraint"],
    ["D1_ERROR: gatepost_form_limit_reached: SQLITE_CONSTRAINT", "constraint"],
    ['D1_ERROR: near "SELEC": syntax error at offset 0: SQLITE_ERROR', "bug"],
    ["D1_ERROR: no such column: stat: SQLITE_ERROR", "bug"],
    ["D1_TYPE_ERROR: Type 'undefined' not supported for value 'undefined'", "bug"],
  ])("%s is %s", (message, kind) => {
    expect(classifyD1Failure(new Error(message))).toBe(kind);
  });

  it("names the constraint when asked", () => {
    const error = new Error("D1_ERROR: UNIQUE constraint failed: submissions.form_id, submissions.idempotency_key: SQLITE_CONSTRAINT");
    expect(isConstraintFailure(error)).toBe(true);
    expect(isConstraintFailure(error, "submissions.form_id, submissions.idempotency_key")).toBe(true);
    expect(isConstraintFailure(error, "submissions.id")).toBe(false);
    expect(isConstraintFailure(new Error("D1_ERROR: Network connection lost."))).toBe(false);
  });
});

describe("withD1Retry", () => {
  it("tries a transient failure again, up to three tries, then throws the last failure", async () => {
    const tries: number[] = [];
    const run = (attempt: number) => {
      tries.push(attempt);
      return Promise.reject(new Error(`D1_ERROR: Network connection lost. (${attempt})`));
    };
    await expect(withD1Retry(run, { wait: noWait })).rejects.toThrow("(3)");
    expect(tries).toEqual([1, 2, 3]);
  });

  it("answers with the first success", async () => {
    let tries = 0;
    const value = await withD1Retry(
      async () => {
        if (++tries < 2) throw new Error("D1_ERROR: D1 DB reset because its code was updated.");
        return "rows";
      },
      { wait: noWait },
    );
    expect([value, tries]).toEqual(["rows", 2]);
  });

  it.each([
    "D1_ERROR: D1 DB is overloaded. Too many requests queued.",
    "D1_ERROR: UNIQUE constraint failed: x.y",
    "D1_ERROR: no such table: x",
  ])("never repeats %s", async (message) => {
    let tries = 0;
    await expect(
      withD1Retry(
        () => {
          tries++;
          return Promise.reject(new Error(message));
        },
        { wait: noWait },
      ),
    ).rejects.toThrow(message);
    expect(tries).toBe(1);
  });

  it("retries only while the invocation's budget has room for another try", async () => {
    const budget = budgetFor("free");
    budget.spend({ d1Queries: 42 }); // 48 usable on Free (2 kept back): room for one more 5-statement try
    let tries = 0;
    await expect(
      withD1Retry(
        () => {
          tries++;
          return Promise.reject(new Error("D1_ERROR: Network connection lost."));
        },
        { attempts: 5, budget, cost: { d1Queries: 5 }, wait: noWait },
      ),
    ).rejects.toThrow();
    expect(tries).toBe(2);
    expect(budget.spent.d1Queries).toBe(47);
  });

  it("waits a growing time between tries, given the try's number", async () => {
    const waited: number[] = [];
    await tryD1(() => Promise.reject(new Error("D1_ERROR: Network connection lost.")), { wait: async (n) => void waited.push(n) });
    expect(waited).toEqual([2, 3]);
  });
});

describe("tryD1 and storageCodeOf", () => {
  it("returns the failure's kind instead of throwing; one try when told not to retry", async () => {
    let tries = 0;
    const failed = await tryD1(
      () => {
        tries++;
        return Promise.reject(new Error("D1_ERROR: Network connection lost."));
      },
      { retry: false },
    );
    expect(failed).toMatchObject({ ok: false, kind: "transient" });
    expect(tries).toBe(1);
  });

  it("turns a database's failure into storage_unavailable, logged, and throws our own bugs", () => {
    const logged = expectConsoleErrors(/rate limit check failed: transient/);
    expect(storageCodeOf({ kind: "transient", error: new Error("lost") }, "rate limit check")).toBe("storage_unavailable");
    expect(logged()).toHaveLength(1);
    const bug = new Error("D1_ERROR: no such column: x");
    expect(() => storageCodeOf({ kind: "bug", error: bug }, "rate limit check")).toThrow(bug);
  });
});

describe("isReadOnlySql", () => {
  it.each([
    ["SELECT 1", true],
    ["  select * from submissions", true],
    ["WITH x AS (SELECT 1) SELECT * FROM x", true],
    ["WITH x AS (SELECT 1) DELETE FROM submissions WHERE id IN x", false],
    ["INSERT INTO audit_log VALUES (1)", false],
    ["UPDATE deliveries SET status = 'pending'", false],
    ["DELETE FROM submissions", false],
  ])("%s: %s", (query, readOnly) => {
    expect(isReadOnlySql(query)).toBe(readOnly);
  });
});
