import { z } from "zod";
import type { SettingProblem } from "~/lib/settings/setting-problem";

// The site's name, logo and brand colour; ink and link colours are picked by WCAG contrast, so a pale brand stays readable.

export interface SiteSettings {
  name: string;
  /** An https URL or a path on this site ("/logo.svg"); null for none. */
  logoUrl: string | null;
  logoOrigin: string | null;
  /** "#rrggbb" or null for Gatepost's own colours. */
  brand: { color: string; ink: string; link: string } | null;
}

export const DEFAULT_SITE_NAME = "Gatepost";
const DEFAULT_LINK = "#1d4ed8";

const HexColorSchema = z
  .string()
  .regex(/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/)
  .transform((hex) => (hex.length === 4 ? `#${[...hex.slice(1)].map((c) => c + c).join("")}` : hex).toLowerCase());
const LogoUrlSchema = z.union([z.url({ protocol: /^https$/ }), z.string().regex(/^\/(?!\/)[\w./-]+$/)]);
const SiteNameSchema = z.string().max(60);

type SiteEnv = Partial<Record<"SITE_NAME" | "SITE_LOGO_URL" | "BRAND_COLOR", unknown>>;

/** Reads the site's look. Never throws: a bad value keeps the default and becomes a problem. */
export function readSiteSettings(env: SiteEnv, problems: SettingProblem[]): SiteSettings {
  const name = parse(env, "SITE_NAME", SiteNameSchema, problems, "at most 60 characters") ?? DEFAULT_SITE_NAME;
  const logoUrl = parse(env, "SITE_LOGO_URL", LogoUrlSchema, problems, "an https URL or a path on this site such as /logo.svg");
  const color = parse(env, "BRAND_COLOR", HexColorSchema, problems, "a hex colour such as #0f766e");
  return {
    name,
    logoUrl,
    logoOrigin: logoUrl?.startsWith("https://") ? new URL(logoUrl).origin : null,
    brand: color ? { color, ink: readableInk(color), link: contrast(color, "#ffffff") >= 4.5 ? color : DEFAULT_LINK } : null,
  };
}

function parse<T>(env: SiteEnv, name: keyof SiteEnv, schema: z.ZodType<T>, problems: SettingProblem[], expected: string): T | null {
  const value = typeof env[name] === "string" ? (env[name] as string).trim() : "";
  if (value === "") return null;
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  problems.push({ variable: name, message: `${name} must be ${expected} (it is ${JSON.stringify(value.slice(0, 80))})` });
  return null;
}

/** White or near-black, whichever reads better on `color`. */
export function readableInk(color: string): string {
  return contrast(color, "#ffffff") >= contrast(color, "#111827") ? "#ffffff" : "#111827";
}

/** The WCAG 2 contrast ratio of two "#rrggbb" colours. */
export function contrast(a: string, b: string): number {
  const [la, lb] = [luminance(a), luminance(b)];
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
}

function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}
