import { Form } from "@remix-run/react";

// A submission's spam checks as the owner reads them (docs/forms.md#spam): why it was held, the filter's
// score and the features that weighed most, Akismet's answer, its mark, and the mark buttons.

export interface SpamPanelData {
  check: { rule: string | null; score: number | null; words: string[]; akismet: string | null } | null;
  mark: "spam" | "ham" | null;
  model: { spamDocs: number; hamDocs: number; minMarks: number };
}

const RULES: Record<string, string> = {
  phrases: "a phrase rule",
  senders: "a sender rule",
  disposable: "the disposable-address rule",
  links: "the links rule",
  scripts: "a scripts rule",
  repeat: "a repeated-field rule",
};
const AKISMET: Record<string, string> = { spam: "spam", ham: "not spam", not_checked: "not checked (no answer in time, or an error)" };

/** What a feature is, in words: link hosts and sender domains are marked as such. */
function featureLabel(feature: string): string {
  if (feature.startsWith("host:")) return `link to ${feature.slice(5)}`;
  if (feature.startsWith("from:")) return `sender at ${feature.slice(5)}`;
  return `“${feature}”`;
}

export function SpamPanel({ spam, canMark }: { spam: SpamPanelData; canMark: boolean }) {
  const { check, mark, model } = spam;
  const silent = model.spamDocs < model.minMarks || model.hamDocs < model.minMarks;
  return (
    <section aria-labelledby="spam-heading">
      <h2 id="spam-heading">Spam checks</h2>
      <dl>
        {check?.rule ? (
          <>
            <dt>Rule</dt>
            <dd>Matched {RULES[check.rule] ?? check.rule}</dd>
          </>
        ) : null}
        <dt>Filter score</dt>
        <dd>
          {check?.score != null
            ? `${Math.round(check.score * 100)} % likely spam`
            : silent
              ? "Not scored: the filter is silent until it has seen enough marks."
              : "Not scored."}
        </dd>
        {check && check.words.length > 0 ? (
          <>
            <dt>Weighed most</dt>
            <dd>
              <ul className="inline-list" aria-label="Features that weighed most toward spam">
                {check.words.map((word) => (
                  <li key={word}>{featureLabel(word)}</li>
                ))}
              </ul>
            </dd>
          </>
        ) : null}
        {check?.akismet ? (
          <>
            <dt>Akismet</dt>
            <dd>{AKISMET[check.akismet] ?? check.akismet}</dd>
          </>
        ) : null}
        <dt>Your mark</dt>
        <dd>{mark === "spam" ? "Spam" : mark === "ham" ? "Not spam" : "None"}</dd>
      </dl>
      {silent ? (
        <p className="note" role="note">
          The learning filter is silent until it has {model.minMarks} marks of each kind: it has {model.spamDocs} spam and {model.hamDocs}{" "}
          not-spam so far. Mark submissions to teach it.
        </p>
      ) : null}
      {canMark ? (
        <Form method="post" className="actions">
          <button type="submit" name="intent" value="mark-spam" disabled={mark === "spam"}>
            Mark as spam
          </button>
          <button type="submit" name="intent" value="mark-ham" disabled={mark === "ham"}>
            Mark as not spam
          </button>
        </Form>
      ) : null}
    </section>
  );
}
