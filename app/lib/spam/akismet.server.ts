import { isAllowedProviderUrl } from "~/lib/http/loopback";

// Akismet's comment-check, submit-spam and submit-ham (ADR 126). It fails open: it judges content, not whether a
// person is there. Home-made: the packages speak Node's http, not fetch, and the call is one form post.

export const AKISMET_URL = "https://rest.akismet.com/1.1";
export const AKISMET_TIMEOUT_MS = 1_500;

export interface AkismetSettings {
  key: string;
  url: string;
  site: string;
}

/** Akismet's settings from the Worker's env, or null when AKISMET_API_KEY is unset (off). */
export function akismetSettingsOf(env: Pick<Env, "AKISMET_API_KEY" | "AKISMET_API_URL">, site: string): AkismetSettings | null {
  const key = (env.AKISMET_API_KEY ?? "").trim();
  if (!key) return null;
  const url = (env.AKISMET_API_URL ?? "").trim().replace(/\/+$/, "") || AKISMET_URL;
  return isAllowedProviderUrl(url) ? { key, url, site } : null;
}

/** comment-check's parameters, kept with the submission for the feedback calls a mark makes. */
export type AkismetParams = Record<string, string>;

export type AkismetVerdict = { checked: true; spam: boolean } | { checked: false; reason: "timeout" | "error" };

interface CallInput {
  settings: AkismetSettings;
  params: AkismetParams;
  fetch?: typeof fetch;
  timeoutMs?: number;
}

/** Asks comment-check. Never throws: a timeout, a network error, a non-2xx or an answer other than true/false is not checked. */
export async function checkWithAkismet(input: CallInput): Promise<AkismetVerdict> {
  const answer = await callAkismet("comment-check", input);
  if (answer === "timeout") return { checked: false, reason: "timeout" };
  if (answer === "true" || answer === "false") return { checked: true, spam: answer === "true" };
  return { checked: false, reason: "error" };
}

/** Tells Akismet a mark (submit-spam / submit-ham). Never throws; false when Akismet did not take it. */
export async function reportToAkismet(input: CallInput & { as: "spam" | "ham" }): Promise<boolean> {
  const answer = await callAkismet(input.as === "spam" ? "submit-spam" : "submit-ham", input);
  return answer !== "timeout" && answer !== null;
}

async function callAkismet(method: string, { settings, params, fetch: fetcher = fetch, timeoutMs = AKISMET_TIMEOUT_MS }: CallInput) {
  const body = new URLSearchParams({ ...params, api_key: settings.key, blog: settings.site });
  try {
    const response = await fetcher(`${settings.url}/${method}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body,
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!response.ok) return null;
    return (await response.text()).trim().slice(0, 200);
  } catch (error) {
    return error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError") ? "timeout" : null;
  }
}

/** comment-check's parameters for a post: who sent it from where, and what it says. */
export function akismetParamsOf(input: {
  ip: string | null;
  request: Request;
  author: string | null;
  email: string | null;
  content: string;
  lang: string;
}): AkismetParams {
  const params: AkismetParams = {
    user_ip: input.ip ?? "",
    user_agent: (input.request.headers.get("user-agent") ?? "").slice(0, 500),
    referrer: (input.request.headers.get("referer") ?? "").slice(0, 2000),
    comment_type: "contact-form",
    comment_content: input.content.slice(0, 20_000),
    blog_lang: input.lang,
  };
  if (input.author) params.comment_author = input.author.slice(0, 200);
  if (input.email) params.comment_author_email = input.email.slice(0, 254);
  return params;
}
