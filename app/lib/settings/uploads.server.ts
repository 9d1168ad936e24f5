import { MIN_SECRET_LENGTH } from "./admin.server";
import type { SettingProblem } from "./settings.server";

// The secret that signs download links in notifications (docs/decisions/051). Like SESSION_SECRET it
// may hold several values, space-separated, while rotating: the first signs, every one verifies, so a
// new secret goes first and the old one is dropped once the links it signed have expired.

export interface UploadSettings {
  /** FILE_LINK_SECRET split on whitespace; empty when unset or when any value is too short. */
  linkSecrets: string[];
}

/** Reads FILE_LINK_SECRET. Never throws: a value too short becomes a problem and no secret. */
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
