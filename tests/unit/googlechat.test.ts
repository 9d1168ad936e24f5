import { describe, expect, it } from "vitest";
import { contactForm } from "~/forms/contact";
import { describeSubmission } from "~/lib/sending/message-content.server";
import type { StoredSubmission } from "~/lib/storage/submissions.server";
import { googleChat } from "~/lib/destinations/googlechat/spec";
import { buildGoogleChatMessage, GOOGLE_CHAT_LIMITS, sendGoogleChat } from "~/lib/destinations/googlechat/sender.server";
// @ts-expect-error - plain ESM part of the local sink
import { readGoogleChatHtml, sink } from "~/lib/destinations/googlechat/sink.mjs";

// The Google Chat kind: a card whose paragraphs are Chat's small HTML, every typed value escaped so the
// space shows it as typed (read back by the sink's reader, which refuses what Chat would not show),
// within 32,000 bytes; its URL setting follows the webhook rules; 404 is gone, 429 waits.

const ID = "5f0c6a3e-2b1d-4c8e-9a7f-3d2e1b0c9a8f";
const LINK = `https://forms.example.org/admin/submissions/${ID}`;

function content(fields: Record<string, string>) {
  const submission = { id: ID, formId: "contact", receivedAt: "2026-11-22T17:00:00.000Z", fields, verification: null };
  return describeSubmission(contactForm, submission as unknown as StoredSubmission, "https://forms.example.org");
}

const HOSTILE = {
  name: 'Ada <users/all> & "co"',
  email: "ada@example.org",
  message: '<a href="https://evil.example">x</a>\n<b>second line</b> &amp;',
};

describe("the Google Chat message", () => {
  it("escapes every typed value for the card's HTML, so the space shows it as typed", () => {
    const message = buildGoogleChatMessage(content(HOSTILE));
    expect(message).not.toHaveProperty("text");
    const shown = sink.describe(JSON.parse(JSON.stringify(message)));
    expect(shown.refused).toBeUndefined();
    expect(shown.title).toBe("New submission: Contact us");
    expect(shown.reference).toBe(ID);
    expect(shown.text).toContain(`Your name\n${HOSTILE.name}`);
    expect(shown.text).toContain(HOSTILE.message);
    expect(shown.text).toContain(`[Open in Gatepost] (${LINK})`);
    expect(JSON.stringify(message)).not.toContain("<users/all>");
  });

  it("is refused by the stand-in when a value is not escaped, as Chat would not show it as typed", () => {
    expect(readGoogleChatHtml("<b>Name</b><br>a &lt; b")).toBe("Name\na < b");
    expect(readGoogleChatHtml("<b>Name</b><br>a < b")).toBeNull();
    expect(readGoogleChatHtml("<script>x</script>")).toBeNull();
    const broken = {
      cardsV2: [{ card: { header: { title: "t" }, sections: [{ widgets: [{ textParagraph: { text: "<img src=x>" } }] }] } }],
    };
    expect(sink.describe(broken).refused).toContain("not Chat's HTML");
  });

  it("keeps within Chat's 32,000 bytes, cutting values with a link to the rest", () => {
    const message = buildGoogleChatMessage(content({ name: "é".repeat(20_000), email: "a@b.org", message: "<&>".repeat(20_000) }));
    expect(new TextEncoder().encode(JSON.stringify(message)).length).toBeLessThanOrEqual(GOOGLE_CHAT_LIMITS.bytes);
    const shown = sink.describe(JSON.parse(JSON.stringify(message)));
    expect(shown.text).toContain(`(cut: full submission (${LINK}))`);
  });

  it("takes an https webhook URL to a public host only, and reports a deleted webhook as gone", async () => {
    const [url] = googleChat.settings;
    const context = { allowLoopbackHttp: false };
    expect(url.check!("https://chat.googleapis.com/v1/spaces/AAA/messages?key=k&token=t", context).ok).toBe(true);
    expect(url.check!("http://chat.googleapis.com/v1/spaces/AAA/messages", context).ok).toBe(false);
    expect(url.check!("https://169.254.169.254/latest", context).ok).toBe(false);
    const answer = (status: number, headers: Record<string, string> = {}) =>
      (async () => new Response("{}", { status, headers })) as unknown as typeof fetch;
    expect(await sendGoogleChat("https://chat.example.org/x", content(HOSTILE), { fetch: answer(404) })).toMatchObject({ error: "gone" });
    expect(
      await sendGoogleChat("https://chat.example.org/x", content(HOSTILE), { fetch: answer(429, { "retry-after": "30" }) }),
    ).toMatchObject({
      error: "rate_limited",
      retryAfterMs: 30_000,
    });
  });
});
