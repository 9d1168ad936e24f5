// The learning filter's arithmetic (ADR 125): naive Bayes over present features, Laplace-smoothed, with the
// marks' own prior. Pure.

/** Marks of each kind the filter needs before it judges anything. */
export const MIN_MARKS = 20;
const TOP_WORDS = 8;
/** One feature moves the odds at most this far (natural log), so no single word decides alone. */
const MAX_WEIGHT = 4;

export interface SpamModel {
  version: number;
  spamDocs: number;
  hamDocs: number;
  tokens: ReadonlyMap<string, readonly [spam: number, ham: number]>;
}

export type SpamScore = { silent: true; spamDocs: number; hamDocs: number } | { silent: false; score: number; words: string[] };

/** Whether the model has seen enough marks of each kind to judge. */
export function isSilent(model: Pick<SpamModel, "spamDocs" | "hamDocs">): boolean {
  return model.spamDocs < MIN_MARKS || model.hamDocs < MIN_MARKS;
}

/** The probability from 0 to 1 that `features` are spam, with the features that pushed it most toward spam. */
export function scoreFeatures(model: SpamModel, features: readonly string[]): SpamScore {
  const { spamDocs, hamDocs } = model;
  if (isSilent(model)) return { silent: true, spamDocs, hamDocs };
  let logOdds = Math.log(spamDocs / hamDocs);
  const weights: Array<[string, number]> = [];
  for (const feature of features) {
    const counts = model.tokens.get(feature);
    if (!counts) continue;
    const pSpam = (counts[0] + 1) / (spamDocs + 2);
    const pHam = (counts[1] + 1) / (hamDocs + 2);
    const weight = Math.max(-MAX_WEIGHT, Math.min(MAX_WEIGHT, Math.log(pSpam / pHam)));
    logOdds += weight;
    weights.push([feature, weight]);
  }
  const words = weights
    .filter(([, weight]) => weight > 0)
    .sort((a, b) => b[1] - a[1])
    .slice(0, TOP_WORDS)
    .map(([feature]) => feature);
  return { silent: false, score: 1 / (1 + Math.exp(-logOdds)), words };
}
