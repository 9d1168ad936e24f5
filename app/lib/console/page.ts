import type { HeadersFunction } from "@remix-run/cloudflare";
import { pageMeta } from "~/lib/text/page-meta";
import { EMPTY_VALUE } from "~/lib/text/empty-value";

// Shared bits of every signed-in admin page: never cached by anyone, never indexed.

/** Cache-Control for signed-in pages: personal data must not sit in any shared or back-button cache. */
export const adminHeaders: HeadersFunction = () => ({ "Cache-Control": "private, no-store" });

/** Title and description, plus noindex: signed-in pages are nobody's search result. */
export function adminMeta(title: string, description: string) {
  return [...pageMeta(title, description), { name: "robots", content: "noindex, nofollow" }];
}

/** Formats an ISO timestamp as "2026-11-22 17:40:12 UTC" (the console always shows UTC). */
export function formatUtc(iso: string | null | undefined): string {
  if (!iso) return EMPTY_VALUE;
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : `${date.toISOString().slice(0, 19).replace("T", " ")} UTC`;
}
