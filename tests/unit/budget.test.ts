import { describe, expect, it } from "vitest";
import { budgetFor, InvocationBudget, parsePlan, PLANS } from "~/lib/platform/budget.server";
import { isBudgetRefusal } from "~/lib/storage/d1-failure.server";
import { parseSettings } from "~/lib/settings/settings.server";
import { postAttempt } from "~/lib/sending/attempt.server";
import { sendEmailAttempt } from "~/lib/sending/send-email.server";
import { settleStatements } from "~/lib/delivery/settle.server";

describe("the plan's per-invocation budget", () => {
  it("reads CLOUDFLARE_PLAN as free (the default) or paid, and reports anything else as a settings problem", () => {
    expect(parsePlan(undefined)).toBe("free");
    expect(parsePlan(" Paid ")).toBe("paid");
    expect(parsePlan("pro")).toBeNull();
    expect(parseSettings({}).plan).toBe("free");
    expect(parseSettings({ CLOUDFLARE_PLAN: "paid" }).plan).toBe("paid");
    const bad = parseSettings({ CLOUDFLARE_PLAN: "enterprise" });
    expect(bad.plan).toBe("free");
    expect(bad.problems.map((p) => p.variable)).toContain("CLOUDFLARE_PLAN");
  });

  it("spends only what fits below the limit less the reserve, and says how many units are left", () => {
    const budget = new InvocationBudget({ subrequests: 10, d1Queries: 20, cpuMs: 10 }, { d1Queries: 2, subrequests: 0 });
    expect(budget.unitsLeft({ d1Queries: 4, subrequests: 1 })).toBe(4);
    expect(budget.unitsLeft({ d1Queries: 4, subrequests: 1 }, { d1Queries: 2 })).toBe(4);
    expect(budget.unitsLeft({ d1Queries: 4, subrequests: 1 }, { d1Queries: 3 })).toBe(3);
    expect(budget.trySpend({ d1Queries: 18 })).toBe(true);
    expect(budget.trySpend({ d1Queries: 1 })).toBe(false);
    expect(budget.spent).toEqual({ d1Queries: 18, subrequests: 0 });
    expect(budget.unitsLeft({ subrequests: 1 })).toBe(10);
    expect(budget.unitsLeft({ subrequests: 1 }, { d1Queries: 1 })).toBe(0);
    budget.spend({ subrequests: 12 });
    expect(budget.unitsLeft({ subrequests: 1 })).toBe(0);
  });

  it("gives Free's and Paid's limits", () => {
    expect(budgetFor("free").limits).toBe(PLANS.free);
    expect(PLANS.free).toMatchObject({ subrequests: 50, d1Queries: 50 });
    expect(budgetFor("paid").unitsLeft({ subrequests: 1 })).toBe(10_000);
  });

  it("recognises the platform's refusals for a spent budget, and nothing else", () => {
    expect(isBudgetRefusal(new Error("Too many subrequests."))).toBe(true);
    expect(isBudgetRefusal(new Error("D1_ERROR: Too many API requests by single worker invocation."))).toBe(true);
    expect(isBudgetRefusal(new Error("Network connection lost."))).toBe(false);
    expect(isBudgetRefusal("Too many subrequests.")).toBe(false);
  });
});

describe("a platform refusal is not a delivery attempt", () => {
  const refusing = (async () => {
    throw new Error("Too many subrequests.");
  }) as typeof fetch;

  it("postAttempt records the refused fetch as `budget`, not as a network failure", async () => {
    const record = await postAttempt({ url: "https://receiver.example/hook", headers: {}, body: "{}", fetch: refusing });
    expect(record).toMatchObject({ delivered: false, error: "budget", httpStatus: null });
    const failed = await postAttempt({
      url: "https://receiver.example/hook",
      headers: {},
      body: "{}",
      fetch: (async () => {
        throw new Error("connection refused");
      }) as typeof fetch,
    });
    expect(failed.error).toBe("network");
  });

  it("sendEmailAttempt does the same for the send_email binding", async () => {
    const mailer = { send: async () => Promise.reject(new Error("Too many subrequests.")) };
    expect(await sendEmailAttempt(mailer, "forms@example.org", ["owner@example.org"], "raw")).toMatchObject({ error: "budget" });
  });

  it("settles a `budget` record by giving the lease back: no log row, no attempt counted", () => {
    const statements: string[] = [];
    const db = {
      prepare: (query: string) => ({ bind: () => (statements.push(query.replace(/\s+/g, " ").trim()), {}) }),
    } as unknown as D1Database;
    const claim = { id: "msg_1", submissionId: "s", formId: "contact", destination: "webhook", attempts: 3 };
    const record = {
      delivered: false,
      httpStatus: null,
      error: "budget" as const,
      detail: "Too many subrequests.",
      latencyMs: 0,
      excerpt: null,
    };
    const settled = settleStatements(db, claim, "drain:x", record, Date.now());
    expect(settled.outcome).toBe("released");
    expect(statements).toHaveLength(1);
    expect(statements[0]).toMatch(/^UPDATE deliveries SET lease_owner = NULL, lease_until = NULL WHERE id = \?/);
    expect(statements[0]).not.toMatch(/attempts|delivery_attempts/);
  });
});
