// Turnstile's settings, read once per request from the Worker's bindings. Empty vars fall back to
// built-in defaults so wrangler.toml can list every setting without hiding a real value.

export const DEFAULT_VERIFY_URL = "https://challenges.cloudflare.com/turnstile/v0/siteverify";
export const DEFAULT_SCRIPT_URL = "https://challenges.cloudflare.com/turnstile/v0/api.js";

export interface TurnstileSettings {
  siteKey: string;
  secretKey: string | undefined;
  verifyUrl: string;
  scriptUrl: string;
  /** Explicit allowlist; empty means "the request's own host". */
  allowedHostnames: string[];
}

/** Reads settings from env. Never throws: missing secrets surface later as catalogue errors. */
export function readTurnstileSettings(env: Partial<Env>): TurnstileSettings {
  return {
    siteKey: text(env.TURNSTILE_SITE_KEY),
    secretKey: text(env.TURNSTILE_SECRET_KEY) || undefined,
    verifyUrl: text(env.TURNSTILE_VERIFY_URL) || DEFAULT_VERIFY_URL,
    scriptUrl: text(env.TURNSTILE_SCRIPT_URL) || DEFAULT_SCRIPT_URL,
    allowedHostnames: text(env.TURNSTILE_ALLOWED_HOSTNAMES)
      .split(/[\s,]+/)
      .filter(Boolean),
  };
}

/** The hostnames a token may come back with: the configured list, else the request's own host. */
export function expectedHostnames(settings: TurnstileSettings, request: Request, formHostnames: readonly string[] = []): string[] {
  // TURNSTILE_ALLOWED_HOSTNAMES wins; without it, this site and the hostnames the console set for the form.
  return settings.allowedHostnames.length > 0 ? settings.allowedHostnames : [new URL(request.url).hostname, ...formHostnames];
}

function text(value: unknown): string {
  return typeof value === "string" ? value.trim() : "";
}
