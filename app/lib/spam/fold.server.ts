import { foldForSearch } from "~/lib/storage/search-text.server";

// Text as the rules and the filter compare it: folded as search folds, then without accents ("víágra" is "viagra").

/** `text` folded for case and accents. */
export function foldForSpam(text: string): string {
  return foldForSearch(text)
    .normalize("NFD")
    .replace(/\p{M}+/gu, "")
    .normalize("NFC");
}

/** The folded words of `text`, in order, repeats kept. */
export function spamWordsOf(text: string): string[] {
  return foldForSpam(text).match(/[\p{L}\p{N}]+/gu) ?? [];
}
