import type { FieldValue, FormDef, SpamAction, SpamRule } from "~/forms/schema";
import { isDisposableAddress } from "~/lib/spam/disposable.server";
import { foldForSpam, spamWordsOf } from "~/lib/spam/fold.server";

// A form's content rules (docs/forms.md#spam), each linear in the values it reads, which validation bounds.

export type RuleMatch = { index: number; kind: SpamRule["kind"]; action: SpamAction };

type Values = Readonly<Record<string, FieldValue>>;

/** A link as spam carries it: a scheme, or a bare www. host. */
const LINK = /(?:\bhttps?:\/\/|\bwww\.)[^\s<>"']+/giu;

/** The first rule that matches, a refusing one before any that quarantines; null when none does. Never throws. */
export function matchSpamRules(form: Pick<FormDef, "fields" | "spam">, values: Values): RuleMatch | null {
  const rules = form.spam?.rules ?? [];
  if (rules.length === 0) return null;
  const text = new FreeText(form, values);
  let quarantine: RuleMatch | null = null;
  for (const [index, rule] of rules.entries()) {
    if (rule.action === "quarantine" && quarantine) continue;
    if (!matches(rule, text, values)) continue;
    const match = { index, kind: rule.kind, action: rule.action };
    if (rule.action === "refuse") return match;
    quarantine = match;
  }
  return quarantine;
}

/** The free text of a submission, folded once however many rules read it. */
class FreeText {
  #phrases: string | null = null;
  constructor(
    readonly form: Pick<FormDef, "fields">,
    readonly values: Values,
  ) {}

  get raw(): string[] {
    return this.form.fields
      .filter((field) => field.type === "text" || field.type === "textarea")
      .map((field) => this.values[field.name])
      .filter((value): value is string => typeof value === "string" && value !== "");
  }

  /** Every typed value's folded words, space-separated and space-padded, so a phrase matches whole words. */
  get words(): string {
    this.#phrases ??= ` ${this.form.fields
      .filter((field) => ["text", "textarea", "email", "url"].includes(field.type))
      .flatMap((field) => spamWordsOf(String(this.values[field.name] ?? "")))
      .join(" ")} `;
    return this.#phrases;
  }

  get sender(): string | null {
    const field = this.form.fields.find((f) => f.type === "email");
    const value = field ? this.values[field.name] : null;
    return typeof value === "string" && value.includes("@") ? value.trim().toLowerCase() : null;
  }
}

function matches(rule: SpamRule, text: FreeText, values: Values): boolean {
  switch (rule.kind) {
    case "phrases":
      return rule.phrases.some((phrase) => {
        const words = spamWordsOf(phrase);
        return words.length > 0 && text.words.includes(` ${words.join(" ")} `);
      });
    case "senders": {
      const sender = text.sender;
      return sender !== null && rule.senders.some((entry) => isSender(sender, entry.trim().toLowerCase()));
    }
    case "disposable":
      return text.sender !== null && isDisposableAddress(text.sender);
    case "links":
      return text.raw.reduce((n, value) => n + (value.match(LINK)?.length ?? 0), 0) > rule.max;
    case "scripts": {
      const value = values[rule.field];
      return typeof value === "string" && outsideScripts(rule.scripts).test(value);
    }
    case "repeat": {
      const [a, b] = [values[rule.field], values[rule.of]];
      return typeof a === "string" && typeof b === "string" && a.trim() !== "" && foldForSpam(a.trim()) === foldForSpam(b.trim());
    }
  }
}

/** An address matches itself; a domain matches addresses at it and at its subdomains. */
function isSender(sender: string, raw: string): boolean {
  const entry = raw.replace(/^@/, "");
  if (entry.includes("@")) return sender === entry;
  const domain = sender.slice(sender.lastIndexOf("@") + 1);
  return domain === entry || domain.endsWith(`.${entry}`);
}

const SCRIPT_PATTERNS = new Map<string, RegExp>();

/** A letter of none of `scripts` (Common and Inherited, digits, punctuation and marks, always pass). */
function outsideScripts(scripts: readonly string[]): RegExp {
  const key = scripts.join(",");
  let pattern = SCRIPT_PATTERNS.get(key);
  if (!pattern) {
    const allowed = [...scripts, "Common", "Inherited"].map((name) => `\\p{Script=${name}}`).join("");
    pattern = new RegExp(`[^${allowed}]`, "u");
    SCRIPT_PATTERNS.set(key, pattern);
  }
  return pattern;
}
