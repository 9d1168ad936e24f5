// The settings `npm start` and `npm run dev` run Gatepost with: local defaults any environment variable overrides.
import { randomBytes } from "node:crypto";
import { hashPassword } from "./hash-password.mjs";
import { settingNames } from "./setting-names.mjs";

// Cloudflare's documented always-pass test keys: fine locally, never for a deployed site.
const DEFAULTS = {
  TURNSTILE_SITE_KEY: "1x00000000000000000000AA",
  TURNSTILE_SECRET_KEY: "1x0000000000000000000000000000000AA",
  TURNSTILE_VERIFY_URL: "https://challenges.cloudflare.com/turnstile/v0/siteverify",
  TURNSTILE_SCRIPT_URL: "https://challenges.cloudflare.com/turnstile/v0/api.js",
  TURNSTILE_ALLOWED_HOSTNAMES: "",
  // Fixed local values, so a link from an earlier start still opens and console settings still unseal.
  FORM_SIGNING_SECRET: "local-only-form-signing-secret-not-for-deployment",
  FILE_LINK_SECRET: "local-only-file-link-secret-not-for-deployment",
  FORM_ALLOWED_ORIGINS: "",
  SETTINGS_ENCRYPTION_KEY: "local-only-settings-encryption-key-not-for-deployment",
};

/** A fresh console password each start (ADMIN_PASSWORD picks yours), hashed, and a random session secret; the environment wins. */
async function adminDevSettings() {
  const settings = {
    ADMIN_PASSWORD_HASH: "",
    VIEWER_PASSWORD_HASH: "",
    SESSION_SECRET: randomBytes(32).toString("base64url"),
    CF_ACCESS_TEAM_DOMAIN: "",
    CF_ACCESS_AUD: "",
  };
  if (process.env.ADMIN_PASSWORD_HASH) return { settings, password: null };
  const password = process.env.ADMIN_PASSWORD || randomBytes(12).toString("base64url");
  return { settings: { ...settings, ADMIN_PASSWORD_HASH: await hashPassword(password) }, password };
}

/** The local defaults, the console's, `extra`, then every setting the environment gives, form settings by the naming convention. */
export async function localSettings(forms, extra = {}) {
  const admin = await adminDevSettings();
  const settings = { ...DEFAULTS, ...admin.settings, ...extra };
  const formSettingNames = forms.flatMap((form) => Object.values(form.settings));
  for (const key of new Set([...Object.keys(settings), ...settingNames(), ...formSettingNames])) {
    if (process.env[key] !== undefined) settings[key] = process.env[key];
  }
  return { settings, password: admin.password };
}
