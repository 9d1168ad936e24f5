import type { SpamSettings } from "~/forms/schema";

// A code form's spam settings in words on its console page (a console form edits them as JSON).

function describeRule(rule: NonNullable<SpamSettings["rules"]>[number]): string {
  const what =
    rule.kind === "phrases"
      ? `phrases: ${rule.phrases.join(", ")}`
      : rule.kind === "senders"
        ? `senders: ${rule.senders.join(", ")}`
        : rule.kind === "disposable"
          ? "a disposable e-mail address"
          : rule.kind === "links"
            ? `more than ${rule.max} links in free text`
            : rule.kind === "scripts"
              ? `${rule.field} in a script other than ${rule.scripts.join(", ")}`
              : `${rule.field} repeating ${rule.of}`;
  return `${what} → ${rule.action === "refuse" ? "refuse (spam_refused)" : "quarantine"}`;
}

export function SpamRules({ spam }: { spam: SpamSettings | undefined }) {
  const rules = spam?.rules ?? [];
  return (
    <>
      <h2 id="spam-title">Spam</h2>
      <p>
        {spam?.filter === false
          ? "The learning filter and Akismet are off for this form."
          : `The learning filter quarantines above a score of ${spam?.threshold ?? 0.9}.`}
      </p>
      {rules.length > 0 ? (
        <ul aria-labelledby="spam-title">
          {rules.map((rule, index) => (
            <li key={index}>{describeRule(rule)}</li>
          ))}
        </ul>
      ) : (
        <p>No content rules.</p>
      )}
    </>
  );
}
