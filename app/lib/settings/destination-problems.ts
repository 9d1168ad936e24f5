import { KIND_SPECS } from "~/lib/destinations/registry";
import type { SettingProblem } from "~/lib/settings/setting-problem";

// Every form's destination settings in the environment, checked once per parse so /healthz names a bad one
// before a delivery is held on it; found by suffix, so no form list is needed.

const SETTINGS = KIND_SPECS.flatMap((spec) => spec.settings).sort((a, b) => b.suffix.length - a.suffix.length);

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
    const setting = SETTINGS.find((s) => variable.endsWith(`_${s.suffix}`));
    if (!setting) continue;
    if (setting.wantsEmailFrom?.(value)) wantsEmail.push(variable);
    const problem = setting.problem?.(value, { allowLoopbackHttp });
    if (problem) problems.push({ variable, message: `${variable} ${problem}` });
  }
  if (wantsEmail.length > 0 && !emailFrom) {
    problems.push({
      variable: "EMAIL_FROM",
      message: `EMAIL_FROM must be set to a sender on your domain for ${wantsEmail.join(", ")}; e-mails are held until it is`,
    });
  }
  return problems;
}

/** The site-wide stand-ins for form settings, by suffix; a bad one is named in `problems`, not used. Never throws. */
export function readSiteWideSettings(
  raw: (variable: string) => string,
  context: { allowLoopbackHttp: boolean },
  problems: SettingProblem[],
): Record<string, string> {
  const values: Record<string, string> = {};
  for (const setting of SETTINGS) {
    if (!setting.siteWide) continue;
    const { variable } = setting.siteWide;
    const value = raw(variable);
    const problem = value === "" ? null : (setting.problem?.(value, context) ?? null);
    if (problem) problems.push({ variable, message: `${variable} ${problem}` });
    else if (value !== "") values[setting.suffix] = value;
  }
  return values;
}
