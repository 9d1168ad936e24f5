import { describe, expect, it } from "vitest";
import { contactForm } from "~/forms/contact";
import { parseSettings } from "~/lib/settings/settings.server";
import { describeSubmission, type MessageContent } from "~/lib/sending/message-content.server";
import { buildNotificationEmail } from "~/lib/destinations/email/sender.server";
import { confirmationKey } from "~/lib/destinations/confirmation/limits.server";
import { buildConfirmationEmail } from "~/lib/destinations/confirmation/sender.server";
import { buildSlackMessage, escapeSlack, SLACK_LIMITS } from "~/lib/destinations/slack/sender.server";
import { buildDiscordMessage, DISCORD_LIMITS } from "~/lib/destinations/discord/sender.server";
import { configuredDestinations, resolveDestination } from "~/lib/destinations/configured.server";
import { submitterAddress } from "~/lib/sending/submitter-address.server";
import { parseRetryAfter, postAttempt } from "~/lib/sending/attempt.server";
import type { StoredSubmission } from "~/lib/storage/submissions.server";
import { EMPTY_VALUE } from "~/lib/text/empty-value";
// @ts-expect-error - plain ESM helper of the local sink
import { describeEmail } from "../../dev/sink-page.mjs";

const ID = "5f0c6a3e-2b1d-4c8e-9a7f-3d2e1b0c9a8f";
const LINK = `https://forms.example.org/admin/submissions/${ID}`;

function submission(fields: Record<string, string>): StoredSubmission {
  return { id: ID, formId: "contact", receivedAt: "2026-11-22T17:00:00.000Z", fields, verification: null } as unknown as StoredSubmission;
}

function content(fields: Record<string, string>): MessageContent {
  return describeSubmission(contactForm, submission(fields), "https://forms.example.org");
}

/** Splits a MIME message into its header block and decoded parts, the way a mail client does. */
function parse(raw: string) {
  const [head] = raw.split("\r\n\r\n");
  const boundary = /boundary=([^\s;]+)/.exec(raw)![1];
  const parts = raw
    .split(`--${boundary}`)
    .slice(1, -1)
    .map((part) => {
      const [partHead, ...rest] = part.replace(/^\r\n/, "").split("\r\n\r\n");
      return { head: partHead, body: Buffer.from(rest.join("\r\n\r\n").replace(/\s+/g, ""), "base64").toString("utf8") };
    });
  return {
    head,
    headerNames: head
      .split("\r\n")
      .filter((l) => /^\S/.test(l))
      .map((l) => l.split(":")[0]),
    parts,
  };
}

describe("an empty value in every message", () => {
  it("is the one empty mark in the content each kind builds from, so e-mail, Slack and Discord agree", () => {
    // An optional choice left unanswered is stored as null; a text left empty as "".
    const described = describeSubmission(
      contactForm,
      submission({ name: "Ada", email: "ada@example.org", message: "", topic: null } as unknown as Record<string, string>),
      null,
    );
    expect(described.rows.map((row) => row.value)).toEqual(["Ada", "ada@example.org", EMPTY_VALUE, EMPTY_VALUE]);
    const slack = JSON.stringify(buildSlackMessage(described));
    const discord = JSON.stringify(buildDiscordMessage(described));
    for (const text of [slack, discord]) expect(text).not.toMatch(/\bnull\b/);
    expect(discord).toContain(`"value":"${EMPTY_VALUE}"`);
  });
});

describe("the owner's notification e-mail (MIME by mimetext)", () => {
  const fields = { name: "Ada Lovelace", email: "ada@example.org", message: "Hello from the <b>analytical</b> engine & co." };

  it("has From, To, Reply-To (the sender), a subject naming the form, and a plain-text and an HTML part", () => {
    const raw = buildNotificationEmail(content(fields), "forms@example.org", ["owner@example.org", "two@example.org"], "ada@example.org");
    const { head, parts } = parse(raw);
    expect(head).toMatch(/^From: =\?utf-8\?B\?[^?]+\?= <forms@example\.org>$/m);
    expect(head).toContain("To: <owner@example.org>,\r\n <two@example.org>");
    expect(head).toMatch(/^Reply-To: <ada@example\.org>$/m);
    expect(head).toMatch(/^Message-ID: <[^>]+@example\.org>$/m);
    expect(head).toContain("Content-Type: multipart/alternative");
    const subject = /^Subject: =\?utf-8\?B\?([^?]+)\?=$/m.exec(head)![1];
    expect(Buffer.from(subject, "base64").toString()).toBe("New submission: Contact us");
    expect(parts.map((p) => /Content-Type: (\S+);/.exec(p.head)![1])).toEqual(["text/plain", "text/html"]);
    const [text, html] = parts.map((p) => p.body);
    // Fields in the form's order, the reference and the link.
    expect(text.indexOf("Your name:")).toBeLessThan(text.indexOf("E-mail address:"));
    expect(text.indexOf("E-mail address:")).toBeLessThan(text.indexOf("Message:"));
    expect(text).toContain(fields.message);
    expect(text).toContain(`Reference: ${ID}`);
    expect(text).toContain(LINK);
    expect(html).toContain("Hello from the &lt;b&gt;analytical&lt;/b&gt; engine &amp; co.");
    expect(html).not.toContain("<b>analytical");
    expect(html).toContain(`<a href="${LINK}">`);
    // Every line fits SMTP's limit, and the message uses CRLF throughout.
    expect(raw.split("\r\n").every((line) => line.length <= 998)).toBe(true);
    expect(raw.replaceAll("\r\n", "")).not.toContain("\n");
  });

  it("no field value can add a header: CR/LF, encoded words and a forged boundary stay in the body", () => {
    const evil = {
      name: "Eve\r\nBcc: victim@example.net",
      email: "eve@example.org\r\nBcc: victim@example.net",
      message: "=?utf-8?B?QmNjOiB2aWN0aW1AZXhhbXBsZS5uZXQ=?=\r\n\r\n--boundary\r\nContent-Type: text/html\r\n\r\n<script>alert(1)</script>",
    };
    const c = content(evil);
    // The submitter's address is not valid, so it is not used as Reply-To at all.
    expect(submitterAddress(contactForm, evil)).toBeNull();
    const raw = buildNotificationEmail(c, "forms@example.org", ["owner@example.org"], submitterAddress(contactForm, evil));
    const { headerNames, parts } = parse(raw);
    expect(headerNames).not.toContain("Bcc");
    expect(headerNames).not.toContain("Reply-To");
    expect(raw).not.toContain("victim@example.net"); // only base64 in the body
    expect(raw).not.toContain("<script>");
    expect(parts).toHaveLength(2);
    expect(parts[0].body).toContain("Bcc: victim@example.net"); // shown as text, harmlessly
    expect(parts[1].body).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(() => buildNotificationEmail(c, "forms@example.org", ["owner@example.org"], "eve@example.org\r\nBcc: x@y.z")).toThrow();
  });

  it("reads back in the local sink as a person would see it", () => {
    const raw = buildNotificationEmail(
      content({ ...fields, message: "Grüße — ünïcödé ✓" }),
      "forms@example.org",
      ["owner@example.org"],
      "ada@example.org",
    );
    const shown = describeEmail(raw);
    expect(shown.title).toBe("New submission: Contact us");
    expect(shown.headers).toContainEqual(["Reply-To", "<ada@example.org>"]);
    expect(shown.text).toContain("Grüße — ünïcödé ✓");
    expect(shown.reference).toBe(ID);
  });
});

describe("the confirmation to the sender", () => {
  it("carries only the owner's text and the reference, never what the sender typed", () => {
    const raw = buildConfirmationEmail({
      from: "forms@example.org",
      to: "ada@example.org",
      formTitle: "Contact us",
      subject: "We received your message",
      text: "Thank you.\n\nWe will reply.",
      submissionId: ID,
    });
    const { head, parts } = parse(raw);
    expect(head).toMatch(/^To: <ada@example\.org>$/m);
    expect(head).toMatch(/^Auto-Submitted: auto-replied$/m);
    expect(head).not.toMatch(/^Reply-To/m);
    expect(parts[0].body).toBe(`Thank you.\n\nWe will reply.\n\nReference: ${ID}\n`);
    expect(parts[1].body).toContain("<p>Thank you.</p><p>We will reply.</p>");
  });

  it("keys the 24 h limit by form and address, case-insensitively, without keeping the address", async () => {
    const a = await confirmationKey("contact", "Ada@Example.org");
    expect(a).toBe(await confirmationKey("contact", "ada@example.org"));
    expect(a).not.toBe(await confirmationKey("newsletter", "ada@example.org"));
    expect(a).toMatch(/^[0-9a-f]{64}$/);
  });

  it("is off unless CONFIRMATION is on, and needs EMAIL_FROM", () => {
    const kinds = (env: Record<string, string>) => configuredDestinations(parseSettings(env), contactForm).map((d) => d.kind);
    expect(kinds({})).toEqual([]);
    expect(kinds({ CONTACT_CONFIRMATION: "off" })).toEqual([]);
    expect(kinds({ CONTACT_CONFIRMATION: "on", CONTACT_EMAIL_TO: "o@example.org" })).toEqual(["email", "confirmation"]);
    const check = resolveDestination(parseSettings({ CONTACT_CONFIRMATION: "on" }), contactForm, "confirmation");
    expect(!check.ok && check.reason).toContain("EMAIL_FROM");
  });
});

/** Every text object in a Slack message, wherever it sits (blocks, context elements, fields). */
function slackTextObjects(value: unknown): Array<{ type: string; text: string }> {
  if (Array.isArray(value)) return value.flatMap(slackTextObjects);
  if (typeof value !== "object" || value === null) return [];
  const object = value as Record<string, unknown>;
  const own =
    (object.type === "plain_text" || object.type === "mrkdwn") && typeof object.text === "string"
      ? [object as { type: string; text: string }]
      : [];
  return [...own, ...Object.values(object).flatMap(slackTextObjects)];
}

describe("Slack Block Kit", () => {
  it("puts submitted values only in plain_text objects, so no value can mention, broadcast, link or format", () => {
    const values = {
      name: "<!channel> & <@U123|boss> *bold* _italic_",
      email: "a@example.org",
      message: "~struck~ `code` ```block``` > quote <https://evil.example|click here> <!here> :skull:",
    };
    const message = buildSlackMessage(content(values));
    const texts = slackTextObjects(message.blocks);
    for (const value of Object.values(values)) {
      expect(
        texts.some((t) => t.type === "plain_text" && t.text.includes(value)),
        value,
      ).toBe(true);
    }
    // Nothing a sender typed reaches mrkdwn, where * _ ~ ` and <…> would mean something.
    for (const t of texts.filter((t) => t.type === "mrkdwn")) {
      for (const piece of ["bold", "italic", "struck", "code", "quote", "evil.example", "channel", "here", "U123", "skull"]) {
        expect(t.text, piece).not.toContain(piece);
      }
    }
    expect(JSON.stringify(message.text)).toBe(JSON.stringify("New submission: Contact us"));
    expect(escapeSlack("a<b>&c")).toBe("a&lt;b&gt;&amp;c");
    expect(message.unfurl_links).toBe(false);
  });

  it("has the form's title, each field in order, and the reference with a link", () => {
    const message = buildSlackMessage(content({ name: "Ada", email: "a@example.org", message: "Hello there" }));
    expect(message.blocks[0]).toEqual({ type: "header", text: { type: "plain_text", text: "New submission: Contact us", emoji: false } });
    expect(message.blocks[1]).toEqual({ type: "section", text: { type: "plain_text", text: "Your name\nAda", emoji: false } });
    expect(message.blocks.slice(1, 4).map((b: any) => b.text.text.split("\n")[0])).toEqual(["Your name", "E-mail address", "Message"]);
    expect(JSON.stringify(message.blocks[4])).toContain(`<${LINK}|Open in Gatepost>`);
    expect(message.text).toBe("New submission: Contact us");
  });

  it("cuts long values to Block Kit's limits with … and points to the full submission", () => {
    const long = "x".repeat(4000) + "&".repeat(500);
    const message = buildSlackMessage(content({ name: "Ada", email: "a@example.org", message: long }));
    const section = (message.blocks[3] as { text: { type: string; text: string } }).text;
    expect(section.type).toBe("plain_text");
    expect(section.text.length).toBeLessThanOrEqual(SLACK_LIMITS.sectionText);
    expect(section.text).toMatch(/x… \(cut: the full text is in Gatepost, linked below\)$/);
    expect(JSON.stringify(message.blocks[4])).toContain(`<${LINK}|Open in Gatepost>`);
  });
});

describe("Discord embeds", () => {
  it("turns mentions off and escapes markdown so a value cannot ping, link or format", () => {
    const message = buildDiscordMessage(
      content({ name: "@everyone **bold** [x](https://evil.example)", email: "a@example.org", message: "<@123> ||spoiler|| # heading" }),
    );
    expect(message.allowed_mentions).toEqual({ parse: [] });
    const [embed] = message.embeds as Array<{
      title: string;
      url: string;
      fields: Array<{ name: string; value: string }>;
      footer: { text: string };
    }>;
    expect(embed.title).toBe("New submission: Contact us");
    expect(embed.url).toBe(LINK);
    expect(embed.fields.map((f) => f.name)).toEqual(["Your name", "E\\-mail address", "Message"]);
    expect(embed.fields[0].value).toBe(String.raw`\@everyone \*\*bold\*\* \[x\]\(https://evil.example\)`);
    expect(embed.fields[2].value).toBe(String.raw`\<\@123\> \|\|spoiler\|\| \# heading`);
    expect(embed.footer.text).toBe(`Reference ${ID}`);
  });

  it("cuts long values to Discord's limits with … and a link, keeping the embed under 6,000 characters", () => {
    const message = buildDiscordMessage(content({ name: "n".repeat(300), email: "a@example.org", message: "m".repeat(5000) }));
    const [embed] = message.embeds as Array<{ title: string; fields: Array<{ name: string; value: string }>; footer: { text: string } }>;
    for (const field of embed.fields) expect(field.value.length).toBeLessThanOrEqual(DISCORD_LIMITS.fieldValue);
    expect(embed.fields[2].value).toMatch(/m…\s\[full submission\]\(https:\/\/forms\.example\.org\/admin\/submissions\/[0-9a-f-]+\)$/);
    const total = embed.title.length + embed.footer.text.length + embed.fields.reduce((n, f) => n + f.name.length + f.value.length, 0);
    expect(total).toBeLessThanOrEqual(DISCORD_LIMITS.total);
  });
});

describe("HTTP outcomes for chat destinations", () => {
  const answer = (status: number, headers: Record<string, string> = {}) =>
    (async () => new Response("x", { status, headers })) as unknown as typeof fetch;

  it("reads a 429's Retry-After (seconds or a date), and reports a 404 as a gone destination", async () => {
    expect(parseRetryAfter("30", 0)).toBe(30_000);
    expect(parseRetryAfter("1.5", 0)).toBe(1_500);
    expect(parseRetryAfter(new Date(60_000).toUTCString(), 0)).toBe(60_000);
    expect(parseRetryAfter("soon", 0)).toBeUndefined();
    expect(parseRetryAfter("999999999", 0)).toBe(24 * 3_600_000);
    const limited = await postAttempt({
      url: "https://hooks.example",
      headers: {},
      body: "{}",
      fetch: answer(429, { "retry-after": "7" }),
      goneOn404: true,
    });
    expect(limited).toMatchObject({ delivered: false, error: "rate_limited", httpStatus: 429, retryAfterMs: 7_000 });
    const gone = await postAttempt({ url: "https://hooks.example", headers: {}, body: "{}", fetch: answer(404), goneOn404: true });
    expect(gone).toMatchObject({ delivered: false, error: "gone", httpStatus: 404 });
    const webhook404 = await postAttempt({ url: "https://hooks.example", headers: {}, body: "{}", fetch: answer(404) });
    expect(webhook404).toMatchObject({ error: "http_status" });
  });
});

describe("bad notification settings are reported by name", () => {
  it("flags a Slack URL that is not https, an EMAIL_TO that is not addresses, and e-mail without EMAIL_FROM", () => {
    const problems = parseSettings({
      CONTACT_SLACK_WEBHOOK_URL: "http://hooks.slack.com/services/x",
      CONTACT_DISCORD_WEBHOOK_URL: "https://discord.com/api/webhooks/1/x",
      CONTACT_EMAIL_TO: "owner@example.org, not an address",
      CONTACT_CONFIRMATION: "yes",
    }).problems.map((p) => p.variable);
    expect(problems).toEqual(["CONTACT_SLACK_WEBHOOK_URL", "CONTACT_EMAIL_TO", "CONTACT_CONFIRMATION", "EMAIL_FROM"]);
    const fine = parseSettings({
      EMAIL_FROM: "forms@example.org",
      CONTACT_EMAIL_TO: "a@example.org b@example.org",
      CONTACT_CONFIRMATION: "on",
    });
    expect(fine.problems).toEqual([]);
    expect(parseSettings({ CONTACT_SLACK_WEBHOOK_URL: "http://127.0.0.1:9/slack", ALLOW_LOOPBACK_WEBHOOKS: "true" }).problems).toEqual([]);
  });
});

describe("the form registry's destination checks", () => {
  it("refuses a kind listed twice and a confirmation without its text; with no e-mail field it is never queued", async () => {
    const { checkForms } = await import("~/lib/forms/check");
    const { newsletterForm } = await import("~/forms/newsletter");
    const twice = { ...contactForm, id: "twice", destinations: [{ kind: "slack" as const }, { kind: "slack" as const }] };
    expect(() => checkForms([twice])).toThrowError(/twice: destination "slack" is listed twice/);
    const noEmail = {
      ...newsletterForm,
      id: "no-email",
      fields: newsletterForm.fields.filter((f) => f.type !== "email"),
      destinations: [{ kind: "confirmation" as const, subject: "", text: "Thanks" }],
    };
    expect(() => checkForms([noEmail])).toThrowError(/no-email: a confirmation needs its subject and text/);
    const withText = { ...noEmail, destinations: [{ kind: "confirmation" as const, subject: "Thanks", text: "Thanks" }] };
    expect(configuredDestinations(parseSettings({ NO_EMAIL_CONFIRMATION: "on", EMAIL_FROM: "f@example.org" }), withText)).toEqual([]);
    expect(checkForms([contactForm])).toEqual([contactForm]);
  });
});
