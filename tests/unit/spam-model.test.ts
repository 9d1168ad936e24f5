import { describe, expect, it } from "vitest";
import { spamFeaturesOf } from "~/lib/spam/features.server";
import { MIN_MARKS, scoreFeatures, type SpamModel } from "~/lib/spam/model";

/** A model trained in memory as the marks batch trains D1: per feature, in how many marks of each kind. */
function train(spam: string[][], ham: string[][]): SpamModel {
  const tokens = new Map<string, [number, number]>();
  for (const [docs, at] of [
    [spam, 0],
    [ham, 1],
  ] as const) {
    for (const doc of docs) for (const f of new Set(doc)) (tokens.get(f) ?? tokens.set(f, [0, 0]).get(f)!)[at] += 1;
  }
  return { version: 1, spamDocs: spam.length, hamDocs: ham.length, tokens };
}

const spamText = (i: number) => ({
  email: `x${i}@promo.test`,
  message: `Boost your SEO ranking today https://cheap-links.test/${i} guaranteed`,
});
const hamText = (i: number) => ({ email: `p${i}@example.org`, message: `Hello, I would like a quote for ${i} chairs delivered on Friday` });

describe("the learning filter", () => {
  it("reads folded words, link hosts and the sender's domain, once each and bounded", () => {
    const features = spamFeaturesOf({ email: "A@Mail.Example", message: "Café CAFÉ https://www.Shop.test/x shop" });
    expect(features).toEqual(expect.arrayContaining(["from:mail.example", "cafe", "host:shop.test", "shop"]));
    expect(features.filter((f) => f === "cafe")).toHaveLength(1);
    expect(spamFeaturesOf({ message: Array.from({ length: 2000 }, (_, i) => `w${i}`).join(" ") })).toHaveLength(400);
  });

  it("stays silent until it has enough marks of each kind", () => {
    const spam = Array.from({ length: MIN_MARKS }, (_, i) => spamFeaturesOf(spamText(i)));
    const ham = Array.from({ length: MIN_MARKS - 1 }, (_, i) => spamFeaturesOf(hamText(i)));
    expect(scoreFeatures(train(spam, ham), spamFeaturesOf(spamText(99)))).toEqual({
      silent: true,
      spamDocs: MIN_MARKS,
      hamDocs: MIN_MARKS - 1,
    });
  });

  it("scores spam high and ham low once trained, naming the words that weighed", () => {
    const model = train(
      Array.from({ length: 30 }, (_, i) => spamFeaturesOf(spamText(i))),
      Array.from({ length: 30 }, (_, i) => spamFeaturesOf(hamText(i))),
    );
    const spam = scoreFeatures(model, spamFeaturesOf(spamText(500)));
    const ham = scoreFeatures(model, spamFeaturesOf(hamText(500)));
    expect(!spam.silent && spam.score).toBeGreaterThan(0.99);
    expect(!ham.silent && ham.score).toBeLessThan(0.01);
    expect(!spam.silent && spam.words).toEqual(expect.arrayContaining(["seo", "host:cheap-links.test", "from:promo.test"]));
    expect(!spam.silent && spam.words.length).toBeLessThanOrEqual(8);
  });
});
