import { env } from "cloudflare:test";
import { inject } from "vitest";
import { beforeEach, describe, expect, it } from "vitest";
import { apiPost, appFetch, countingDb, formPost, sink, sinkEnv, standin, standinToken } from "./helpers";
import { clearAdminTables, seedSubmission } from "./admin-helpers";
import { api, consoleEnv, putAndPublish, resetConsoleForms, sampleDefinition } from "./console-helpers";

// Spam through the real Worker (docs/forms.md#spam): a form's rules (quarantine and refuse), the filter
// trained by marks through the admin API (silent first, then quarantining with its score and words),
// release as "ham" and delivering, a spam mark stopping waiting deliveries, and Akismet through its
// stand-in (spam, ham, a timeout that still delivers, feedback on marks).

const HAM = { name: "Ada Lovelace", email: "ada@example.org", message: "Could you send me a quote for the blue chairs, please?" };
const SPAM = {
  name: "Promo Team",
  email: "deals@promo.test",
  message: "Boost your SEO ranking today, guaranteed backlinks https://cheap-links.test/now",
};

/** A fresh D1 binding object per test: the built app keeps its model copy per binding (model-store.server.ts). */
let db: D1Database;
const withDb = (appEnv: Env): Env => ({ ...appEnv, DB: db });
const akismet = {
  origin: () => inject("akismetOrigin"),
  async mode(mode: string, delayMs?: number) {
    await fetch(`${inject("akismetOrigin")}/__akismet/mode`, { method: "POST", body: JSON.stringify({ mode, delayMs }) });
  },
  async calls(): Promise<Array<{ method: string; params: Record<string, string> }>> {
    return (await fetch(`${inject("akismetOrigin")}/__akismet/calls`)).json();
  },
};

beforeEach(async () => {
  db = countingDb(env.DB).db;
  await standin.reset();
  await sink.reset();
  await fetch(`${akismet.origin()}/__akismet/reset`, { method: "POST" });
  await clearAdminTables();
  await env.DB.batch([
    env.DB.prepare("DELETE FROM spam_tokens"),
    env.DB.prepare("UPDATE spam_model SET version = version + 1, spam_docs = 0, ham_docs = 0"),
  ]);
});

async function postApi(formId: string, fields: Record<string, string>, appEnv: Env) {
  return appFetch(apiPost(formId, { ...fields, "cf-turnstile-response": standinToken({ action: formId }) }), withDb(appEnv));
}

async function row(id: string) {
  return env.DB.prepare(
    `SELECT s.status, s.quarantine_reason, c.rule, c.score, c.words, c.akismet,
       (SELECT COUNT(*) FROM deliveries d WHERE d.submission_id = s.id) AS deliveries
     FROM submissions s LEFT JOIN spam_checks c ON c.submission_id = s.id WHERE s.id = ?1`,
  )
    .bind(id)
    .first<{
      status: string;
      quarantine_reason: string | null;
      rule: string | null;
      score: number | null;
      words: string | null;
      akismet: string | null;
      deliveries: number;
    }>();
}

function mark(id: string, as: string, appEnv = consoleEnv(sinkEnvVars())) {
  return api("POST", `/admin/api/submissions/${id}/mark`, { body: { as }, appEnv: withDb(appEnv) });
}

function sinkEnvVars() {
  return { CONTACT_WEBHOOK_URL: sink.url(), CONTACT_WEBHOOK_SECRET: sink.secret(), ALLOW_LOOPBACK_WEBHOOKS: "true" };
}

describe("rules in a form's definition", () => {
  beforeEach(resetConsoleForms);

  it("quarantines on a phrase (the sender sees the usual answer) and refuses on too many links", async () => {
    await putAndPublish(
      "ruled",
      sampleDefinition({
        fields: [
          { name: "name", type: "text", label: "Your name", hint: "How to address you.", required: true },
          { name: "email", type: "email", label: "E-mail address", hint: "For our reply.", required: true },
          { name: "message", type: "textarea", label: "Message", hint: "Anything." },
        ],
        destinations: [],
        spam: {
          rules: [
            { kind: "phrases", phrases: ["Guaranteed backlinks"], action: "quarantine" },
            { kind: "links", max: 1, action: "refuse" },
          ],
        },
      }),
    );
    const held = await postApi("ruled", { ...HAM, message: "We sell GUARANTEED báckliñks!" }, consoleEnv());
    expect(held.status).toBe(201);
    const { id } = (await held.json()) as { id: string };
    expect(await row(id)).toMatchObject({ status: "quarantined", quarantine_reason: "spam_rule", rule: "phrases", deliveries: 0 });

    // A page post held by a rule gets the same thank-you redirect as any other.
    const page = await appFetch(
      formPost("/f/ruled", { ...HAM, message: "guaranteed backlinks", "cf-turnstile-response": standinToken({ action: "ruled" }) }),
      withDb(consoleEnv()),
    );
    expect(page.status).toBe(303);
    expect(page.headers.get("location")).toMatch(/^\/f\/ruled\/thanks\//);

    const refused = await postApi("ruled", { ...HAM, message: "see https://a.test and https://b.test" }, consoleEnv());
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { code: string }).code).toBe("spam_refused");
    expect(await env.DB.prepare("SELECT COUNT(*) AS n FROM submissions WHERE form_id = 'ruled'").first("n")).toBe(2);

    // A plain post passes every rule and is kept with no spam row at all (the filter is still silent).
    const plain = (await (await postApi("ruled", HAM, consoleEnv())).json()) as { id: string };
    expect(await row(plain.id)).toMatchObject({ status: "accepted", rule: null, score: null });
  });

  it("refuses a definition whose rule names a field the form lacks", async () => {
    const put = await api("PUT", "/admin/api/forms/broken", {
      body: sampleDefinition({ spam: { rules: [{ kind: "repeat", field: "name", of: "company", action: "quarantine" }] } }),
    });
    expect(put.status).toBe(422);
    expect(await put.text()).toContain('names field \\"company\\"');
  });
});

describe("the learning filter, trained by marks", () => {
  async function seedMarked(n: number, as: "spam" | "ham") {
    for (let i = 0; i < n; i++) {
      const fields =
        as === "spam"
          ? {
              name: `Promo ${i}`,
              email: `x${i}@promo.test`,
              message: `Cheap SEO backlinks ranking offer ${i} https://cheap-links.test/${i}`,
            }
          : {
              name: `Person ${i}`,
              email: `p${i}@example.org`,
              message: `Hello, a question about my order number ${i} and the delivery date`,
            };
      const id = await seedSubmission({ fields });
      const marked = await mark(id, as);
      expect(marked.status, await marked.clone().text()).toBe(200);
    }
  }

  it("stays silent until 20 marks of each kind, then quarantines spam with its score and words and lets ham through", async () => {
    await seedMarked(20, "spam");
    await seedMarked(19, "ham");
    const early = (await (await postApi("contact", SPAM, sinkEnv())).json()) as { id: string };
    expect(await row(early.id)).toMatchObject({ status: "accepted", score: null });

    await seedMarked(1, "ham");
    const spam = (await (await postApi("contact", SPAM, sinkEnv())).json()) as { id: string };
    const held = await row(spam.id);
    expect(held).toMatchObject({ status: "quarantined", quarantine_reason: "spam_filter", deliveries: 0 });
    expect(held!.score).toBeGreaterThan(0.9);
    expect(JSON.parse(held!.words!)).toEqual(expect.arrayContaining(["host:cheap-links.test", "from:promo.test"]));

    const ham = (await (await postApi("contact", HAM, sinkEnv())).json()) as { id: string };
    const passed = await row(ham.id);
    expect(passed).toMatchObject({ status: "accepted", quarantine_reason: null, deliveries: 1 });
    expect(passed!.score).toBeLessThan(0.5);

    // Every mark is audited with who made it.
    const audit = await env.DB.prepare(
      "SELECT COUNT(*) AS n FROM audit_log WHERE action = 'submission.mark' AND actor IS NOT NULL AND target IS NOT NULL",
    ).first("n");
    expect(audit).toBe(40);
    const model = await env.DB.prepare("SELECT spam_docs, ham_docs FROM spam_model").first();
    expect(model).toEqual({ spam_docs: 20, ham_docs: 20 });
  });

  it("counts a release as ham, delivering what quarantine held", async () => {
    const id = await seedSubmission({ fields: SPAM, quarantineReason: "spam_filter" });
    const { adminEnv, adminPost, sessionCookie } = await import("./admin-helpers");
    const appEnv = withDb(await adminEnv(sinkEnvVars()));
    const cookie = await sessionCookie("admin", appEnv);
    const released = await appFetch(adminPost(`/admin/submissions/${id}`, { intent: "release" }, { Cookie: cookie }), appEnv);
    expect(released.status).toBeLessThan(400);
    expect(await row(id)).toMatchObject({ status: "accepted", deliveries: 1 });
    expect((await sink.state()).unique).toHaveLength(1);
    expect(await env.DB.prepare("SELECT label FROM spam_marks WHERE submission_id = ?1").bind(id).first("label")).toBe("ham");
    expect(await env.DB.prepare("SELECT ham_docs FROM spam_model").first("ham_docs")).toBe(1);
  });

  it("stops a submission's waiting deliveries when it is marked spam, and takes the old mark back on a change", async () => {
    const id = await seedSubmission({ fields: SPAM, deliveries: [{ status: "pending" }] });
    const marked = await mark(id, "spam");
    expect(await marked.json()).toEqual({ id, as: "spam", changed: true, stoppedDeliveries: 1 });
    expect(await row(id)).toMatchObject({ status: "quarantined", quarantine_reason: "spam_marked", deliveries: 0 });
    const tokens = await env.DB.prepare("SELECT SUM(spam) AS s, SUM(ham) AS h FROM spam_tokens").first<{ s: number; h: number }>();
    expect(tokens!.s).toBeGreaterThan(5);
    // The same mark again changes nothing; the other mark moves every count across.
    expect(await (await mark(id, "spam")).json()).toMatchObject({ changed: false });
    expect(await (await mark(id, "ham")).json()).toMatchObject({ changed: true });
    const moved = await env.DB.prepare("SELECT SUM(spam) AS s, SUM(ham) AS h FROM spam_tokens").first<{ s: number; h: number }>();
    expect(moved).toEqual({ s: 0, h: tokens!.s });
    expect(await env.DB.prepare("SELECT spam_docs, ham_docs FROM spam_model").first()).toEqual({ spam_docs: 0, ham_docs: 1 });
  });

  it("refuses a mark without a label, an unknown submission, and a viewer's token", async () => {
    const id = await seedSubmission({ fields: HAM });
    expect((await api("POST", `/admin/api/submissions/${id}/mark`, { body: { as: "maybe" } })).status).toBe(422);
    expect((await mark("no-such-id", "spam")).status).toBe(404);
    const { makeApiToken } = await import("./console-helpers");
    const viewer = await makeApiToken("viewer");
    expect((await api("POST", `/admin/api/submissions/${id}/mark`, { body: { as: "spam" }, token: viewer })).status).toBe(403);
    // Its marks go with the submission (retention and erase delete it).
    await mark(id, "ham");
    await env.DB.prepare("DELETE FROM submissions WHERE id = ?1").bind(id).run();
    expect(await env.DB.prepare("SELECT COUNT(*) AS n FROM spam_marks").first("n")).toBe(0);
  });
});

describe("Akismet, when AKISMET_API_KEY is set", () => {
  const akismetEnv = () => sinkEnv({ AKISMET_API_KEY: "standin-akismet-key", AKISMET_API_URL: `${akismet.origin()}/1.1` });

  it("quarantines what Akismet calls spam, delivers the rest, and sends marks back", async () => {
    const spam = (await (await postApi("contact", { ...HAM, name: "viagra-test-123" }, akismetEnv())).json()) as { id: string };
    expect(await row(spam.id)).toMatchObject({ status: "quarantined", quarantine_reason: "spam_akismet", akismet: "spam" });
    const ham = (await (await postApi("contact", HAM, akismetEnv())).json()) as { id: string };
    expect(await row(ham.id)).toMatchObject({ status: "accepted", akismet: "ham", deliveries: 1 });
    const checks = await akismet.calls();
    expect(checks.map((c) => c.method)).toEqual(["comment-check", "comment-check"]);
    expect(checks[1]!.params).toMatchObject({
      api_key: "standin-akismet-key",
      user_ip: "198.51.100.20",
      comment_type: "contact-form",
      comment_author_email: "ada@example.org",
      blog: "http://localhost",
    });

    expect(
      (
        await mark(
          ham.id,
          "spam",
          consoleEnv({ ...sinkEnvVars(), AKISMET_API_KEY: "standin-akismet-key", AKISMET_API_URL: `${akismet.origin()}/1.1` }),
        )
      ).status,
    ).toBe(200);
    const feedback = (await akismet.calls()).slice(2);
    expect(feedback).toEqual([{ method: "submit-spam", params: expect.objectContaining({ comment_author_email: "ada@example.org" }) }]);
  });

  it("accepts and delivers a post Akismet does not answer in time, marked not checked", async () => {
    await akismet.mode("slow", 5_000);
    const slow = (await (await postApi("contact", HAM, akismetEnv())).json()) as { id: string };
    expect(await row(slow.id)).toMatchObject({ status: "accepted", akismet: "not_checked", deliveries: 1 });
    expect((await sink.state()).unique).toHaveLength(1);
    await akismet.mode("http500");
    const failed = (await (await postApi("contact", { ...HAM, name: "viagra-test-123" }, akismetEnv())).json()) as { id: string };
    expect(await row(failed.id)).toMatchObject({ status: "accepted", akismet: "not_checked" });
  });
});

describe("marks in the console", () => {
  it("marks several ticked submissions from the list at once, audited as one, and shows a submission's checks", async () => {
    const { adminEnv, adminGet, sessionCookie, SAME_ORIGIN } = await import("./admin-helpers");
    const appEnv = withDb(await adminEnv());
    const cookie = await sessionCookie("admin", appEnv);
    const ids = [await seedSubmission({ fields: SPAM }), await seedSubmission({ fields: SPAM }), await seedSubmission({ fields: HAM })];
    const body = new URLSearchParams([
      ["intent", "mark-spam"],
      ["id", ids[0]!],
      ["id", ids[1]!],
    ]);
    const marked = await appFetch(
      new Request("http://localhost/admin/submissions?_data=routes%2Fadmin.submissions._index", {
        method: "POST",
        body: body.toString(),
        headers: { "content-type": "application/x-www-form-urlencoded", Cookie: cookie, ...SAME_ORIGIN },
      }),
      appEnv,
    );
    expect(marked.status).toBe(200);
    expect(await marked.json()).toEqual({ ok: true, message: "Marked 2 submissions as spam." });
    const labels = await env.DB.prepare("SELECT submission_id, label FROM spam_marks ORDER BY submission_id").all();
    expect(labels.results).toEqual([...ids.slice(0, 2)].sort().map((id) => ({ submission_id: id, label: "spam" })));
    const audit = await env.DB.prepare("SELECT target, detail FROM audit_log WHERE action = 'submission.mark'").all<{
      target: string | null;
      detail: string;
    }>();
    expect(audit.results).toHaveLength(1);
    expect(JSON.parse(audit.results[0]!.detail)).toMatchObject({ as: "spam", ids: ids.slice(0, 2), changed: 2 });

    // The detail page says why the filter is silent, and marks one from its own buttons.
    // React separates interpolated text with empty comments; a person reads it without them.
    const page = (await (await appFetch(adminGet(`/admin/submissions/${ids[2]}`, cookie), appEnv)).text()).replaceAll("<!-- -->", "");
    expect(page).toContain("silent until it has 20 marks of each kind: it has 2 spam and 0 not-spam so far");
    const one = await appFetch(
      new Request(`http://localhost/admin/submissions/${ids[2]}?_data=routes%2Fadmin.submissions.%24id`, {
        method: "POST",
        body: "intent=mark-ham",
        headers: { "content-type": "application/x-www-form-urlencoded", Cookie: cookie, ...SAME_ORIGIN },
      }),
      appEnv,
    );
    expect(await one.json()).toEqual({ ok: true, message: "Marked 1 submission as ham." });
    // A viewer sees the checks but gets no mark buttons, and cannot mark.
    const viewer = await sessionCookie("viewer", appEnv);
    const viewed = await (await appFetch(adminGet(`/admin/submissions/${ids[2]}`, viewer), appEnv)).text();
    expect(viewed).toContain("Spam checks");
    expect(viewed).not.toContain("Mark as spam");
  });

  it("shows quarantined counts per reason and day on the dashboard", async () => {
    const { adminEnv, adminGet, sessionCookie } = await import("./admin-helpers");
    const appEnv = withDb(await adminEnv());
    await seedSubmission({ fields: SPAM, quarantineReason: "spam_filter" });
    await seedSubmission({ fields: SPAM, quarantineReason: "spam_filter" });
    await seedSubmission({ fields: SPAM, quarantineReason: "honeypot_filled" });
    const html = await (await appFetch(adminGet("/admin", await sessionCookie("admin", appEnv)), appEnv)).text();
    const today = new Date().toISOString().slice(0, 10);
    expect(html).toMatch(new RegExp(`${today}</td><td[^>]*>The learning filter</td><td[^>]*>2</td>`));
    expect(html).toMatch(new RegExp(`${today}</td><td[^>]*>Honeypot filled</td><td[^>]*>1</td>`));
  });
});
