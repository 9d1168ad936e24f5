import { describe, expect, it } from "vitest";
import { applyForm } from "~/forms/apply";
import type { StoredFile } from "~/forms/schema";
import { describeSubmission } from "~/lib/sending/message-content.server";
import { notificationHtml, notificationText } from "~/lib/destinations/email/sender.server";
import { buildSlackMessage } from "~/lib/destinations/slack/sender.server";
import { buildDiscordMessage } from "~/lib/destinations/discord/sender.server";
import { buildPayload } from "~/lib/sending/standard-webhook.server";
import type { LinkedFile } from "~/lib/sending/linked-files.server";
import type { StoredSubmission } from "~/lib/storage/submissions.server";
// @ts-expect-error - plain ESM shared with the local sink
import { sink as slackSink } from "~/lib/destinations/slack/sink.mjs";

// ADR 051: every notification names the files and links to them, never carries their bytes, and
// escapes a file's name (the sender's text) for where it goes.

const ID = "5f0c6a3e-2b1d-4c8e-9a7f-3d2e1b0c9a8f";
const FILE: StoredFile = {
  id: "01a20433-4a80-7c3e-9a41-2d5e8b7f6c10",
  name: 'CV <img src=x onerror=alert(1)> *bold* [x](https://evil.example) "q".pdf',
  type: "application/pdf",
  size: 48213,
  sha256: "9d71163dc24be1b13a3aaa2e8442180adde41424b81b912832a61ae06a3eccba",
};
const URL_ = `https://forms.example.org/files/${ID}/${FILE.id}?expires=1795971601&signature=ZaaysXECv2V10unrCfoSuKNWHLImsosZtq2db5bAJzw`;
const submission = {
  id: ID,
  formId: "apply",
  formVersion: null,
  test: false,
  receivedAt: "2026-11-22T17:00:00.000Z",
  fields: { name: "Ada", email: "ada@example.org", cv: [FILE] },
  status: "accepted",
  quarantineReason: null,
  verification: null,
} as StoredSubmission;
const linked: LinkedFile[] = [{ field: "cv", label: "Your CV", file: FILE, link: { url: URL_, expiresAt: "2026-11-29T17:00:01.000Z" } }];
const content = describeSubmission(applyForm, submission, "https://forms.example.org", linked);

describe("files in notifications", () => {
  it("the webhook payload lists each file with its link and expiry, and no bytes", () => {
    const payload = buildPayload(submission, linked);
    expect(payload.submission.files).toEqual([
      {
        id: FILE.id,
        field: "cv",
        name: FILE.name,
        type: FILE.type,
        size: FILE.size,
        sha256: FILE.sha256,
        url: URL_,
        url_expires_at: "2026-11-29T17:00:01.000Z",
      },
    ]);
    expect(payload.submission.fields.cv).toEqual([FILE]);
  });

  it("the e-mail's text names the file and gives its link; its HTML links it with the name escaped", () => {
    const text = notificationText(content);
    expect(text).toContain(`- Your CV: ${FILE.name} (47 KB)\n  ${URL_}`);
    expect(text).toContain("The file links work until 2026-11-29 17:00 UTC");
    const html = notificationHtml(content);
    expect(html).toContain(`<a href="${URL_.replaceAll("&", "&amp;")}">CV &lt;img src=x onerror=alert(1)&gt;`);
    expect(html).not.toContain("<img");
  });

  it("Slack gets a link button whose label is plain text, so the name cannot format or link itself", () => {
    const message = buildSlackMessage(content);
    const actions = message.blocks.find((block) => block.type === "actions") as { elements: Array<Record<string, any>> };
    expect(actions.elements).toHaveLength(1);
    expect(actions.elements[0]).toMatchObject({ type: "button", url: URL_, text: { type: "plain_text" } });
    expect(actions.elements[0].text.text.startsWith("Download CV <img")).toBe(true);
    expect([...actions.elements[0].text.text].length).toBeLessThanOrEqual(75);
    expect(JSON.stringify(message.blocks.filter((b) => b.type !== "actions"))).not.toContain(URL_);
    // The local sink's page shows the button with its link, as Slack would.
    expect(slackSink.describe(message).text).toContain(`(${URL_})`);
  });

  it("Discord lists the file as a masked link with the name's markdown escaped", () => {
    const embed = buildDiscordMessage(content).embeds[0] as { fields: Array<{ name: string; value: string }> };
    const files = embed.fields.find((field) => field.name === "Files");
    expect(files?.value).toBe(
      `[CV \\<img src=x onerror=alert\\(1\\)\\> \\*bold\\* \\[x\\]\\(https://evil.example\\) "q".pdf](${URL_}) (47 KB)`,
    );
  });

  it("a file without a link (no PUBLIC_URL or FILE_LINK_SECRET) is named, and pointed to the console", () => {
    const bare = describeSubmission(applyForm, submission, null, [{ ...linked[0], link: null }]);
    expect(notificationText(bare)).toContain(`- Your CV: ${FILE.name} (47 KB) (download it in the console)`);
    expect(buildSlackMessage(bare).blocks.some((block) => block.type === "actions")).toBe(false);
    expect(buildPayload(submission, [{ ...linked[0], link: null }]).submission.files[0]).toMatchObject({ url: null, url_expires_at: null });
  });
});
