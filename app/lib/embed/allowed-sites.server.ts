import type { AdminUser } from "~/lib/auth/admin-user.server";
import { forgetFormCatalog } from "~/lib/forms/catalog.server";
import { isLoopbackHost } from "~/lib/http/loopback";
import { exactOrigins, parseOrigin } from "~/lib/http/origin";
import type { Settings } from "~/lib/settings/settings.server";
import { auditStatement } from "~/lib/storage/audit-log.server";
import { putEmbedSitesStatement, type EmbedSites } from "~/lib/storage/embed-sites.server";

// The sites allowed to embed a form, set on the console's Embed page (ADR 076): origins that frame and post, and
// Turnstile hostnames. The environment's FORM_ALLOWED_ORIGINS and TURNSTILE_ALLOWED_HOSTNAMES win.

export const MAX_EMBED_SITES = 20;
const HOSTNAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

export interface EmbedContext {
  db: D1Database;
  settings: Settings;
  user: AdminUser;
  request: Request;
  nowMs: number;
}

/** Which of a form's two lists the environment sets (and so wins over the console's). */
export function environmentEmbeds(
  settings: Settings,
  formId: string,
): { origins: readonly string[] | null; hostnames: readonly string[] | null } {
  const hostnames = settings.turnstile.allowedHostnames;
  return { origins: settings.forms.extraOrigins.get(formId) ?? null, hostnames: hostnames.length > 0 ? hostnames : null };
}

function itemsOf(text: string): string[] {
  return [...new Set(text.split(/[\s,]+/).filter(Boolean))];
}

/** The origins (parsed: ADR 108) and hostnames typed, checked: each problem named, nothing kept while one remains. Never throws. */
export function checkEmbedSites(
  input: { origins: string; hostnames: string },
  { allowLoopbackHttp }: { allowLoopbackHttp: boolean },
): { ok: true; sites: EmbedSites } | { ok: false; code: "embed_sites_invalid"; problems: string[] } {
  const origins = itemsOf(input.origins);
  const hostnames = itemsOf(input.hostnames.toLowerCase());
  const problems: string[] = [];
  for (const origin of origins) {
    const parsed = parseOrigin(origin);
    if (!parsed) {
      problems.push(
        `“${origin.slice(0, 80)}” is not an origin: scheme://host[:port] in lower case, a host of letters, digits, dots and dashes, with no path, slash or other character.`,
      );
    } else if (parsed.scheme !== "https" && !(allowLoopbackHttp && isLoopbackHost(parsed.host))) {
      problems.push(`“${origin}” must use https.`);
    }
  }
  for (const host of hostnames) {
    if (!HOSTNAME.test(host)) problems.push(`“${host.slice(0, 80)}” is not a hostname (like www.example.org).`);
  }
  if (origins.length > MAX_EMBED_SITES || hostnames.length > MAX_EMBED_SITES) problems.push(`At most ${MAX_EMBED_SITES} of each.`);
  if (problems.length > 0) return { ok: false, code: "embed_sites_invalid", problems };
  return { ok: true, sites: { origins: exactOrigins(origins), hostnames } };
}

/** Keeps a form's embed sites, the environment's kinds unchanged, with its audit entry. D1 errors throw. */
export async function saveEmbedSites(ctx: EmbedContext, formId: string, typed: EmbedSites, current: EmbedSites): Promise<EmbedSites> {
  const environment = environmentEmbeds(ctx.settings, formId);
  const sites = {
    origins: environment.origins ? current.origins : typed.origins,
    hostnames: environment.hostnames ? current.hostnames : typed.hostnames,
  };
  await ctx.db.batch([
    putEmbedSitesStatement(ctx.db, formId, sites, ctx.nowMs),
    auditStatement(ctx.db, {
      user: ctx.user,
      request: ctx.request,
      nowMs: ctx.nowMs,
      action: "form.embed",
      target: formId,
      detail: { origins: sites.origins.join(" ") || "none", hostnames: sites.hostnames.join(" ") || "none" },
    }),
  ]);
  forgetFormCatalog();
  return sites;
}
