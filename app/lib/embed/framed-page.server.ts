import { exactOrigins, matchOrigin } from "~/lib/http/origin";
import { FRAME_ANCESTORS_HEADER } from "~/lib/http/security-headers.server";

// A form's page framed on another site (/f/:id?embed=1): framed only by the form's allowed origins, with no site
// header or footer, telling only that page its height (ADR 076). Every page of the visit stays framed.

export interface EmbedView {
  embed: boolean;
  parent: string | null;
}

/** Whether a request's query asks for the framed page, and from which allowed page. Never throws. */
export function embedViewOf(query: URLSearchParams, allowedOrigins: readonly string[]): EmbedView {
  if (query.get("embed") !== "1") return { embed: false, parent: null };
  return { embed: true, parent: matchOrigin(query.get("parent"), allowedOrigins) };
}

/** The headers that let the allowed origins (rebuilt from their parts) frame an embedded page; nothing for a page that is not. */
export function embedHeaders(view: EmbedView, allowedOrigins: readonly string[], headers = new Headers()): Headers {
  const ancestors = exactOrigins(allowedOrigins);
  if (view.embed && ancestors.length > 0) headers.set(FRAME_ANCESTORS_HEADER, ancestors.join(" "));
  return headers;
}

/** The query that keeps the next page of the visit framed ("" when not embedded). */
export function embedQuery(view: EmbedView): string {
  if (!view.embed) return "";
  const query = new URLSearchParams({ embed: "1" });
  if (view.parent) query.set("parent", view.parent);
  return `?${query}`;
}
