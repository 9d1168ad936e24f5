import type { FieldValue } from "~/forms/schema";
import { spamWordsOf } from "~/lib/spam/fold.server";

// What the filter reads of a submission (docs/decisions/125): the folded words of its text values, the
// hosts its links point to, and the sender's domain, each counted once. It reads the stored values
// alone, so a mark trains the same features the post was scored on even after the form changed.
// Bounded, so scoring and training stay linear in a capped list whatever was typed.

export const MAX_FEATURES = 400;
const LINK_HOST = /\b(?:https?:\/\/|www\.)([^\s/?#<>"':]+)/giu;
const ADDRESS = /^[^\s@]+@([^\s@]+\.[^\s@]+)$/u;

/** The distinct features of a submission's values, first seen first, at most MAX_FEATURES. */
export function spamFeaturesOf(values: Readonly<Record<string, FieldValue>>): string[] {
  const features = new Set<string>();
  const add = (feature: string) => {
    if (features.size < MAX_FEATURES) features.add(feature);
  };
  for (const value of Object.values(values)) {
    if (typeof value !== "string" || value === "") continue;
    const address = ADDRESS.exec(value.trim());
    if (address) {
      add(`from:${address[1]!.toLowerCase()}`);
      continue;
    }
    for (const match of value.matchAll(LINK_HOST)) add(`host:${match[1]!.toLowerCase().replace(/^www\./, "")}`);
    for (const word of spamWordsOf(value)) if (word.length >= 2 && word.length <= 30) add(word);
  }
  return [...features];
}
