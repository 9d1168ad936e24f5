import { webhookUrlProblem } from "~/lib/destinations/checks";
import type { KindSetting, SettingCheck, SettingCheckContext } from "~/lib/destinations/kind";

// The one rule for a setting that is a URL Gatepost POSTs to, alike in the console and the environment (ADR 088).

/** A person's URL as delivery reads it, or why not. */
export function checkUrl(value: string, { allowLoopbackHttp }: SettingCheckContext): SettingCheck {
  if (value.length > 2000) return { ok: false, message: "Use a URL of at most 2,000 characters." };
  const problem = webhookUrlProblem(value, allowLoopbackHttp);
  return problem
    ? {
        ok: false,
        message: `The URL ${problem}. Use an https URL to a public host name (plain http only to this computer in local development).`,
      }
    : { ok: true, value };
}

/** A URL setting: checked, shown by host only (its path is a token), sent to the local sink's `path` under `npm start`. */
export function urlSetting<S extends string>(
  own: Pick<KindSetting, "title" | "input" | "hint"> & { suffix: S },
  path: string,
): KindSetting & { suffix: S } {
  return {
    ...own,
    type: "url",
    shown: "url",
    check: checkUrl,
    problem: (value, { allowLoopbackHttp }) => {
      const problem = webhookUrlProblem(value, allowLoopbackHttp);
      return problem ? `${problem}; deliveries to it are held` : null;
    },
    local: (sink) => `${sink.origin}/${path}`,
  };
}

/** The optional base URL of a service's API, for a stand-in only; empty means the service's own. */
export function standinUrlSetting<S extends string>(suffix: S, name: string, service: string, held: string): KindSetting & { suffix: S } {
  return {
    suffix,
    title: `${name} API URL`,
    input: `New ${name} API URL`,
    hint: `Empty: ${service}. Set only for a stand-in.`,
    type: "url",
    shown: "url",
    check: checkUrl,
    problem: (value, { allowLoopbackHttp }) => {
      const problem = webhookUrlProblem(value, allowLoopbackHttp);
      return problem ? `${problem}; ${held} are held` : null;
    },
  };
}
