import { env } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { appFetch, clearTables, formPost, standin, standinToken } from "./helpers";

// patches/@remix-run+server-runtime+2.17.5.patch (ADR 102) in the built Worker, in workerd: a page view
// and a post without `_data` or `index` hand the route the request itself, a client navigation's data
// request a copy without `_data`; each route still reads its query and its body. Both builds of the
// patched file, outside workerd: tests/unit/server-runtime-patch.test.ts.

const VALID = { name: "Ada Lovelace", email: "ada@example.org", message: "Through the request itself." };

beforeEach(async () => {
  await standin.reset();
  await clearTables();
});

describe("routes through the patched server runtime, in the built Worker", () => {
  it("renders a page from its query (the request itself)", async () => {
    const res = await appFetch(new Request("http://localhost/f/contact?lang=de"));
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(/<html lang="de" dir="ltr">/);
  });

  it("answers a data request from its query, without `_data` (a copy)", async () => {
    const res = await appFetch(new Request("http://localhost/f/contact?lang=de&_data=routes%2Ff.%24formId"));
    expect(res.status).toBe(200);
    const data = (await res.json()) as { form: { id: string }; i18n: { lang: string } };
    expect([data.form.id, data.i18n.lang]).toEqual(["contact", "de"]);
  });

  it("accepts a post whose action reads the body of the request itself", async () => {
    const res = await appFetch(formPost("/f/contact", { ...VALID, "cf-turnstile-response": standinToken() }));
    expect(res.status).toBe(303);
    const row = await env.DB.prepare("SELECT fields FROM submissions").first<{ fields: string }>();
    expect(JSON.parse(row?.fields ?? "{}")).toMatchObject({ name: VALID.name, message: VALID.message });
  });
});
