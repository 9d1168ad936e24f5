import { parsePasswordHash } from "~/lib/crypto/password.server";

/** The shortest SESSION_SECRET value accepted: 32 characters, about 190 bits when random. */
export const MIN_SECRET_LENGTH = 32;

// The console never opens by default: with no valid password hash or Access settings it says what to set.

export interface AdminConfig {
  adminHash: string | null;
  viewerHash: string | null;
  /** SESSION_SECRET's values: the first signs, all verify (rotation); empty when unset or any is too short. */
  sessionSecrets: string[];
  access: { teamDomain: string; audience: string } | null;
  /** ADMIN_API_TOKEN: one admin token for the admin API (scripts, automation); null when unset or too short. */
  apiToken: string | null;
  passwordSignIn: boolean;
  open: boolean;
  problems: string[];
}

function text(value: unknown): string {
  return typeof value === "string" ? value.trim() : "";
}

/** Reads the admin settings from env. Never throws; bad values become `problems`. */
export function readAdminConfig(env: Partial<Env>): AdminConfig {
  const problems: string[] = [];
  const rawAdmin = text(env.ADMIN_PASSWORD_HASH);
  const rawViewer = text(env.VIEWER_PASSWORD_HASH);
  const adminHash = parsePasswordHash(rawAdmin) ? rawAdmin : null;
  const viewerHash = parsePasswordHash(rawViewer) ? rawViewer : null;
  if (rawAdmin && !adminHash) problems.push("ADMIN_PASSWORD_HASH is not a hash made by `npm run admin:hash-password`.");
  if (rawViewer && !viewerHash) problems.push("VIEWER_PASSWORD_HASH is not a hash made by `npm run admin:hash-password`.");
  const secrets = text(env.SESSION_SECRET).split(/\s+/).filter(Boolean);
  const sessionSecrets = secrets.length > 0 && secrets.every((s) => s.length >= MIN_SECRET_LENGTH) ? secrets : [];
  if ((adminHash || viewerHash) && sessionSecrets.length === 0) {
    problems.push(
      `SESSION_SECRET must be set to at least ${MIN_SECRET_LENGTH} random characters for password sign-in (several, space-separated, while rotating).`,
    );
  }
  const teamDomain = text(env.CF_ACCESS_TEAM_DOMAIN);
  const audience = text(env.CF_ACCESS_AUD);
  const access = teamDomain && audience ? { teamDomain, audience } : null;
  if (!access && (teamDomain || audience)) problems.push("Cloudflare Access needs both CF_ACCESS_TEAM_DOMAIN and CF_ACCESS_AUD.");
  const rawToken = text(env.ADMIN_API_TOKEN);
  const apiToken = rawToken.length >= MIN_SECRET_LENGTH && !/\s/.test(rawToken) ? rawToken : null;
  if (rawToken && !apiToken)
    problems.push(`ADMIN_API_TOKEN must be at least ${MIN_SECRET_LENGTH} characters with no spaces; it opens nothing until it is.`);
  const passwordSignIn = Boolean((adminHash || viewerHash) && sessionSecrets.length > 0);
  if (!passwordSignIn && !access && !rawAdmin && !rawViewer) {
    problems.push("No password is configured. Run `npm run admin:hash-password` and set its output as ADMIN_PASSWORD_HASH.");
  }
  return { adminHash, viewerHash, sessionSecrets, access, apiToken, passwordSignIn, open: passwordSignIn || Boolean(access), problems };
}
