// The languages Gatepost writes its own texts in, and how a request picks one a form offers. Client-safe.

export const LANGUAGES = ["en", "de", "fr", "es", "it", "pt", "nl", "pl", "ja", "ar"] as const;
export type Lang = (typeof LANGUAGES)[number];

const RIGHT_TO_LEFT: ReadonlySet<Lang> = new Set(["ar"]);

export function isLang(value: unknown): value is Lang {
  return typeof value === "string" && (LANGUAGES as readonly string[]).includes(value);
}

export function textDirection(lang: Lang): "ltr" | "rtl" {
  return RIGHT_TO_LEFT.has(lang) ? "rtl" : "ltr";
}

// A header is read only this far, and only this many of its ranges: the work stays small whatever it holds.
const MAX_HEADER_CHARS = 512;
const MAX_RANGES = 24;

/** The header's language ranges, most wanted first (ties keep their order), by primary subtag. */
export function preferredLanguages(header: string | null): string[] {
  if (!header) return [];
  const ranges = header
    .slice(0, MAX_HEADER_CHARS)
    .split(",", MAX_RANGES)
    .map((part, index) => {
      const [tag = "", ...params] = part.trim().split(";");
      const q = params.map((p) => /^\s*q=([01](?:\.\d{0,3})?)\s*$/i.exec(p)?.[1]).find((value) => value !== undefined);
      return { primary: tag.trim().toLowerCase().split("-")[0] ?? "", q: q === undefined ? 1 : Number(q), index };
    })
    .filter((range) => range.q > 0 && /^[a-z]{2,3}$/.test(range.primary));
  return ranges.sort((a, b) => b.q - a.q || a.index - b.index).map((range) => range.primary);
}

/** A `?lang=` it offers, else Accept-Language's first it offers, else the first offered. Never throws. */
export function chooseLanguage(offered: readonly Lang[], query: URLSearchParams, acceptLanguage: string | null): Lang {
  const fallback = offered[0] ?? "en";
  const asked = query.get("lang");
  if (isLang(asked) && offered.includes(asked)) return asked;
  const wanted = preferredLanguages(acceptLanguage).find((tag): tag is Lang => isLang(tag) && offered.includes(tag));
  return wanted ?? fallback;
}
