import { MIN_SECRET_LENGTH } from "~/lib/settings/admin.server";
import type { SettingProblem } from "~/lib/settings/setting-problem";

// FILE_LINK_SECRET signs the download links (ADR 051); several while rotating: the first signs, all verify.

export interface UploadSettings {
  linkSecrets: string[];
}

/** Never throws: a value too short becomes a problem and no secret. */
export function readUploadSettings(env: Partial<Record<"FILE_LINK_SECRET", unknown>>, problems: SettingProblem[]): UploadSettings {
  const raw = typeof env.FILE_LINK_SECRET === "string" ? env.FILE_LINK_SECRET.trim() : "";
  const secrets = raw.split(/\s+/).filter(Boolean);
  if (secrets.length > 0 && secrets.some((secret) => secret.length < MIN_SECRET_LENGTH)) {
    problems.push({
      variable: "FILE_LINK_SECRET",
      message: `FILE_LINK_SECRET must be at least ${MIN_SECRET_LENGTH} random characters (several, space-separated, while rotating)`,
    });
    return { linkSecrets: [] };
  }
  return { linkSecrets: secrets };
}
