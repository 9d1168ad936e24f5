import { env } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { contactForm } from "~/forms/contact";
import { parseSettings } from "~/lib/settings/settings.server";
import { drainOutbox } from "~/lib/delivery/drain.server";
import type { Mailer, OutgoingEmail, SendEmailBinding } from "~/lib/sending/mailer.server";
import { CATALOGUES } from "~/lib/i18n/catalogue.server";
import { CONTACT_TRANSLATIONS } from "~/forms/translations/contact";
import { apiPost, appFetch, at, clearTables, formPost, standin, standinToken, testEnv } from "./helpers";
import { adminPost, sessionCookie, adminEnv } from "./admin-helpers";
import { consoleEnv, putAndPublish, resetConsoleForms, sampleDefinition } from "./console-helpers";

// A form in its visitor's language: chosen by ?lang= or Accept-Language among the form's, with every
// word Gatepost writes around the owner's (translated) texts in that language, the page's data holding
// that one language only, and the submission keeping it for its thank-you page and confirmation.

const VALID = { name: "Grace Hopper", email: "grace@example.org", message: "A ship in port is safe." };

function page(query: string, acceptLanguage?: string) {
  return appFetch(
    new Request(`http://localhost/f/contact${query}`, { headers: acceptLanguage ? { "Accept-Language": acceptLanguage } : {} }),
  );
}

/** The decoded parts of a base64 MIME message, as a mail client shows them. */
function partsOf(raw: string): string[] {
  const boundary = /boundary=([^\s;]+)/.exec(raw)![1];
  return raw
    .split(`--${boundary}`)
    .slice(1, -1)
    .map((part) => {
      const body = part.replace(/^\r\n/, "").split("\r\n\r\n").slice(1).join("").replace(/\s+/g, "");
      return new TextDecoder().decode(Uint8Array.from(atob(body), (c) => c.charCodeAt(0)));
    });
}

beforeEach(async () => {
  await standin.reset();
  await clearTables();
});

describe("a form page in the visitor's language", () => {
  it("follows Accept-Language, says so in <html lang> and varies on it", async () => {
    const res = await page("", "de-CH, de;q=0.9, en;q=0.5");
    const html = await res.text();
    expect(res.headers.get("vary")).toContain("Accept-Language");
    expect(html).toMatch(/<html lang="de" dir="ltr">/);
    expect(html).toContain(`<h1>${CONTACT_TRANSLATIONS.de.title}</h1>`);
    expect(html).toContain(">Senden</button>");
    expect(html).toContain(CATALOGUES.de.page.skipLink);
    expect(html).toContain(CATALOGUES.de.page.footer);
    // Only the page's own language travels with it: no other catalogue's words.
    for (const other of ["en", "fr", "ja", "ar"] as const) expect(html, other).not.toContain(CATALOGUES[other].page.captcha.ready);
  });

  it("takes ?lang= over the header, and lays Arabic out right to left", async () => {
    const html = await (await page("?lang=ar", "de")).text();
    expect(html).toMatch(/<html lang="ar" dir="rtl">/);
    expect(html).toContain(CATALOGUES.ar.page.send);
    expect(html).toContain(CONTACT_TRANSLATIONS.ar.fields!.name!.label!);
  });

  it("stays in the form's own language for a language it does not offer", async () => {
    const html = await (await page("?lang=sv", "sv, fi")).text();
    expect(html).toMatch(/<html lang="en" dir="ltr">/);
    expect(html).toContain(`<h1>${contactForm.title}</h1>`);
  });

  it("words a refused post's summary and field errors in the visitor's language", async () => {
    const res = await appFetch(
      formPost(
        "/f/contact",
        { name: "", email: "nope", message: VALID.message, "cf-turnstile-response": standinToken() },
        { "Accept-Language": "ja" },
      ),
    );
    expect(res.status).toBe(422);
    const html = await res.text();
    expect(html).toContain(CATALOGUES.ja.page.summaryProblem);
    expect(html).toContain("「お名前」を入力してください。");
    expect(html).toContain("「メールアドレス」には name@example.com のような有効なメールアドレスを入力してください。");
  });

  it("refuses a missing captcha in the visitor's language", async () => {
    const res = await appFetch(formPost("/f/contact", { ...VALID }, { "Accept-Language": "fr" }));
    expect(res.status).toBe(400);
    expect(await res.text()).toContain(CATALOGUES.fr.errors.turnstile_token_missing);
  });
});

describe("the front page in the visitor's language", () => {
  const home = (query: string, acceptLanguage?: string) =>
    appFetch(new Request(`http://localhost/${query}`, { headers: acceptLanguage ? { "Accept-Language": acceptLanguage } : {} }));

  it.each([
    ["?lang=ja", undefined],
    ["", "ja-JP, ja;q=0.9, en;q=0.5"],
  ])("speaks Japanese for %s %s: its words, the frame's, the forms' titles and their links", async (query, acceptLanguage) => {
    const res = await home(query, acceptLanguage);
    const html = await res.text();
    expect(res.headers.get("vary")).toContain("Accept-Language");
    expect(html).toMatch(/<html lang="ja" dir="ltr">/);
    expect(html).toContain(`<title>${CATALOGUES.ja.home.title}`);
    expect(html).toContain(CATALOGUES.ja.home.lead);
    expect(html).toContain(CATALOGUES.ja.page.footer);
    expect(html).toContain(CONTACT_TRANSLATIONS.ja.title);
    expect(html).not.toContain(CATALOGUES.en.home.lead);
    // A language asked for by ?lang= goes on to the form; the header reaches it by itself.
    expect(html).toContain(query ? 'href="/f/contact?lang=ja"' : 'href="/f/contact"');
  });

  it("stays English for a language Gatepost does not write, and lays Arabic out right to left", async () => {
    const english = await (await home("", "sv-SE, sv;q=0.9")).text();
    expect(english).toMatch(/<html lang="en" dir="ltr">/);
    expect(english).toContain(CATALOGUES.en.home.lead);
    expect(await (await home("?lang=ar")).text()).toMatch(/<html lang="ar" dir="rtl">/);
  });
});

describe("after the post", () => {
  it("keeps the language: the thank-you page and the confirmation e-mail speak it", async () => {
    const confirmEnv = testEnv({
      EMAIL_FROM: "forms@example.org",
      CONTACT_CONFIRMATION: "on",
      CONTACT_EMAIL_TO: "",
      CONTACT_WEBHOOK_URL: "",
    });
    // The first try right after the answer is refused; the drain sends it with a recording mailer.
    const refusing: SendEmailBinding = { send: async () => Promise.reject(new Error("not verified")) };
    const posted = await appFetch(
      formPost("/f/contact", { ...VALID, "cf-turnstile-response": standinToken() }, { "Accept-Language": "de" }),
      {
        ...confirmEnv,
        SEND_EMAIL: refusing,
      } as Env,
    );
    expect(posted.status).toBe(303);
    const location = posted.headers.get("location")!;
    const id = location.split("/").pop()!;
    expect(await env.DB.prepare("SELECT lang FROM submissions WHERE id = ?1").bind(id).first("lang")).toBe("de");

    // Whatever the browser's header says next, the page speaks the submission's language.
    const thanks = await (await appFetch(new Request(`http://localhost${location}`, { headers: { "Accept-Language": "en" } }))).text();
    expect(thanks).toMatch(/<html lang="de" dir="ltr">/);
    expect(thanks).toContain(`<h1>${CATALOGUES.de.thanks.title}</h1>`);
    expect(thanks).toContain(CONTACT_TRANSLATIONS.de.successMessage!);
    expect(thanks).toContain(`/f/contact?lang=de`);
    const french = await (await appFetch(new Request(`http://localhost${location}?lang=fr`))).text();
    expect(french).toContain(CATALOGUES.fr.thanks.title);

    const sent: OutgoingEmail[] = [];
    const mailer: Mailer = { send: async (message) => void sent.push(message) };
    const settings = parseSettings(confirmEnv);
    await drainOutbox(env.DB, settings, { mailer, now: at(Date.now() + 3_600_000) });
    expect(sent.map((m) => m.to)).toEqual(["grace@example.org"]);
    const [text, html] = partsOf(sent[0]!.raw);
    expect(text).toContain(CONTACT_TRANSLATIONS.de.confirmation!.text!);
    expect(text).toContain(`Referenz: ${id}`);
    expect(html).toContain('<html lang="de" dir="ltr">');
  });

  it("answers another site's post in the language it asks for", async () => {
    const res = await appFetch(apiPost("contact", VALID, { headers: { "Accept-Language": "es" } }));
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: "turnstile_token_missing", title: CATALOGUES.es.errors.turnstile_token_missing });
  });
});

describe("a console form in several languages", () => {
  const GERMAN = { de: { title: "Rückmeldung", fields: { rating: { label: "Bewertung", options: { good: "Gut" } } } } };

  it("carries the owner's texts per language in its definition and shows them", async () => {
    await resetConsoleForms();
    await putAndPublish("feedback", sampleDefinition({ languages: ["en", "de"], translations: GERMAN }));
    const html = await (await appFetch(new Request("http://localhost/f/feedback?lang=de"), consoleEnv())).text();
    expect(html).toMatch(/<html lang="de" dir="ltr">/);
    expect(html).toContain("<h1>Rückmeldung</h1>");
    expect(html).toContain(">Bewertung<");
    expect(html).toContain('<option value="good">Gut</option>');
    // What the translation leaves out stays as the form's own language has it.
    expect(html).toContain(">Your name<");
  });

  it("keeps its languages and translations through the console's editor", async () => {
    await resetConsoleForms();
    const e = await adminEnv({ ADMIN_API_TOKEN: "workers-admin-api-token-0123456789abcdef" });
    await putAndPublish("feedback", sampleDefinition(), consoleEnv());
    const cookie = await sessionCookie("admin", e);
    const definition = sampleDefinition();
    const fields = (definition.fields as Array<Record<string, unknown>>).flatMap((field, i) =>
      Object.entries(field)
        .filter(([key]) => key !== "options")
        .map(([key, value]) => [`fields.${i}.${key}`, value === true ? "on" : String(value)]),
    );
    const post = {
      intent: "save",
      title: "Feedback",
      description: "Tell us what you think.",
      successMessage: "Thank you.",
      retentionDays: "30",
      languages: "en de",
      translations: JSON.stringify(GERMAN),
      "fields.2.options": "good | Good\nbad | Bad",
      ...Object.fromEntries(fields),
    };
    const res = await appFetch(
      adminPost(`/admin/forms/feedback?_data=${encodeURIComponent("routes/admin.forms.$formId")}`, post, { Cookie: cookie }),
      e,
    );
    expect(res.status, await res.clone().text()).toBe(200);
    const draft = JSON.parse((await env.DB.prepare("SELECT draft FROM forms WHERE id = 'feedback'").first<string>("draft"))!);
    expect(draft).toMatchObject({ languages: ["en", "de"], translations: GERMAN });
    expect(draft.fields[2].options).toEqual([
      { value: "good", label: "Good" },
      { value: "bad", label: "Bad" },
    ]);
  });
});
