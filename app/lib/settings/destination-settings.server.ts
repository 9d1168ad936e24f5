import { z } from "zod";
import { destinationHostProblem } from "../http/destination-host";
import type { SettingProblem } from "./setting-problem";

// The values behind notification destinations, checked once per parse so a bad one is named on
// /healthz before any delivery is held on it; found by suffix, so no form list is needed.

const EmailSchema = z.email({ pattern: z.regexes.html5Email });

/** One address as HTML's <input type=email> accepts it: no spaces, no CR/LF, no angle brackets. */
export function isEmailAddress(value: string): boolean {
  return value.length <= 254 && EmailSchema.safeParse(value).success;
}

/** "a@x.org, b@x.org" or space-separated; null when any entry is not an address. */
export function parseEmailList(value: string): string[] | null {
  const entries = value.split(/[\s,;]+/).filter(Boolean);
  if (entries.length === 0 || entries.length > 50 || !entries.every(isEmailAddress)) return null;
  return [...new Set(entries.map((entry) => entry.toLowerCase()))];
}

/**
 * Why a webhook, Slack or Discord URL cannot be used, in words for whoever set it; null when it can.
 * https to a public host name only; with the local-dev switch, http or https to this computer too.
 */
export function webhookUrlProblem(raw: string, allowLoopbackHttp: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "is not a URL";
  }
  if (url.username || url.password) return "must not carry a user name or password";
  if (url.protocol !== "https:" && url.protocol !== "http:") return "must be an https URL";
  const host = destinationHostProblem(url.hostname);
  if (host) {
    if (allowLoopbackHttp && host.loopback) return null;
    return `must not reach inside: ${host.reason}${host.loopback ? " (ALLOW_LOOPBACK_WEBHOOKS allows it in local development only)" : ""}`;
  }
  return url.protocol === "https:" ? null : "must be an https URL";
}

/** True when webhookUrlProblem finds none. */
export function isAllowedWebhookUrl(raw: string, allowLoopbackHttp: boolean): boolean {
  return webhookUrlProblem(raw, allowLoopbackHttp) === null;
}

/** CONFIRMATION is "on" or "off"/empty; anything else is a typo worth reporting. */
export function isConfirmationOn(value: string): boolean {
  return value.toLowerCase() === "on";
}

const URL_SUFFIXES = ["_WEBHOOK_URL", "_SLACK_WEBHOOK_URL", "_DISCORD_WEBHOOK_URL"] as const;

/** Problems in every form's destination settings in `env`, each naming its variable. Never throws. */
export function checkDestinationSettings(
  env: object,
  { allowLoopbackHttp, emailFrom }: { allowLoopbackHttp: boolean; emailFrom: string | null },
): SettingProblem[] {
  const problems: SettingProblem[] = [];
  const wantsEmail: string[] = [];
  for (const [variable, rawValue] of Object.entries(env)) {
    if (typeof rawValue !== "string" || !/^[A-Z][A-Z0-9_]*$/.test(variable)) continue;
    const value = rawValue.trim();
    if (value === "") continue;
    const urlProblem = URL_SUFFIXES.some((suffix) => variable.endsWith(suffix)) ? webhookUrlProblem(value, allowLoopbackHttp) : null;
    if (urlProblem) {
      problems.push({ variable, message: `${variable} ${urlProblem}; deliveries to it are held` });
    } else if (variable.endsWith("_EMAIL_TO")) {
      wantsEmail.push(variable);
      if (!parseEmailList(value)) {
        problems.push({ variable, message: `${variable} must be one or more e-mail addresses separated by commas; e-mails are held` });
      }
    } else if (variable.endsWith("_CONFIRMATION")) {
      if (isConfirmationOn(value)) wantsEmail.push(variable);
      else if (value.toLowerCase() !== "off") {
        problems.push({
          variable,
          message: `${variable} is either "on" or empty (it is ${JSON.stringify(value.slice(0, 20))}); no confirmation is sent`,
        });
      }
    }
  }
  if (wantsEmail.length > 0 && !emailFrom) {
    problems.push({
      variable: "EMAIL_FROM",
      message: `EMAIL_FROM must be set to a sender on your domain for ${wantsEmail.join(", ")}; e-mails are held until it is`,
    });
  }
  return problems;
}
