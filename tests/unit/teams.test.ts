import { describe, expect, it } from "vitest";
import { contactForm } from "~/forms/contact";
import { describeSubmission } from "~/lib/sending/message-content.server";
import type { StoredSubmission } from "~/lib/storage/submissions.server";
import { teams } from "~/lib/destinations/teams/spec";
import { ADAPTIVE_CARD, buildTeamsMessage, escapeTeams, sendTeams, TEAMS_LIMITS } from "~/lib/destinations/teams/sender.server";
// @ts-expect-error - plain ESM part of the local sink
import { sink } from "~/lib/destinations/teams/sink.mjs";

// The Teams kind: an Adaptive Card in the message a Workflows webhook takes, typed text only in TextRuns
// (never markdown), DATE/TIME braces broken, within 28 KB; its URL follows the webhook rules.

const ID = "5f0c6a3e-2b1d-4c8e-9a7f-3d2e1b0c9a8f";
const LINK = `https://forms.example.org/admin/submissions/${ID}`;

function content(fields: Record<string, string>) {
  const submission = { id: ID, formId: "contact", receivedAt: "2026-11-22T17:00:00.000Z", fields, verification: null };
  return describeSubmission(contactForm, submission as unknown as StoredSubmission, "https://forms.example.org");
}

/** Every element of the card that Teams would read as markdown: a TextBlock's text. */
function markdownTexts(card: { body: Array<{ type: string; text?: string }> }): string[] {
  return card.body.filter((element) => element.type === "TextBlock").map((element) => element.text ?? "");
}

const HOSTILE = {
  name: "**Ada** [link](https://evil.example)",
  email: "ada@example.org",
  message: "{{DATE(2017-02-14T06:08:39Z, SHORT)}} # heading",
};

describe("the Teams message", () => {
  it("is an Adaptive Card in a Workflows message, every typed value a TextRun shown as typed", () => {
    const message = buildTeamsMessage(content(HOSTILE)) as any;
    expect(message).toMatchObject({
      type: "message",
      attachments: [{ contentType: ADAPTIVE_CARD, content: { type: "AdaptiveCard", version: "1.4" } }],
    });
    const card = message.attachments[0].content;
    expect(markdownTexts(card)).toEqual([]);
    const shown = sink.describe(JSON.parse(JSON.stringify(message)));
    expect(shown.title).toBe("New submission: Contact us");
    expect(shown.reference).toBe(ID);
    expect(shown.text).toContain(`Your name\n${HOSTILE.name}`);
    expect(shown.text).toContain(`{\u200B{DATE(2017-02-14T06:08:39Z, SHORT)}} # heading`);
    expect(shown.text).toContain(`[Open in Gatepost] (${LINK})`);
    expect(escapeTeams("a {{TIME(x)}} b")).not.toContain("{{");
  });

  it("is refused by the stand-in unless it is the Workflows message", () => {
    expect(sink.describe({ text: "legacy connector card" }).refused).toContain("Adaptive Card");
  });

  it("keeps within Workflows' 28 KB, cutting values and saying where the rest is", () => {
    const message = buildTeamsMessage(content({ name: "é".repeat(20_000), email: "a@b.org", message: "x".repeat(40_000) }));
    expect(new TextEncoder().encode(JSON.stringify(message)).length).toBeLessThanOrEqual(TEAMS_LIMITS.bytes);
    expect(sink.describe(JSON.parse(JSON.stringify(message))).text).toContain("(cut: the full submission is linked below)");
  });

  it("takes an https Workflows URL to a public host only; a deleted flow is gone", async () => {
    const [url] = teams.settings;
    const context = { allowLoopbackHttp: false };
    expect(url.check!("https://prod-12.westus.logic.azure.com:443/workflows/abc/triggers/manual/paths/invoke?sig=x", context).ok).toBe(
      true,
    );
    expect(url.check!("https://localhost/workflows", context).ok).toBe(false);
    const answer = (status: number) => (async () => new Response("", { status })) as unknown as typeof fetch;
    expect(await sendTeams("https://flow.example.org/x", content(HOSTILE), { fetch: answer(202) })).toMatchObject({ delivered: true });
    expect(await sendTeams("https://flow.example.org/x", content(HOSTILE), { fetch: answer(410) })).toMatchObject({ error: "gone" });
  });
});
