import { z } from "zod";
import { open, seal, type SealingKey } from "~/lib/crypto/secret-box.server";
import { settingSpec } from "~/lib/destinations/registry";
import { FORM_SETTING_SUFFIXES, type FormSettingSuffix } from "~/lib/settings/settings.server";
import type { SettingRow } from "~/lib/storage/forms.server";

// The console's form settings, sealed in D1 as plain strings in the environment's format, so one resolver serves
// both. A generated secret is kept with the previous one and when it stops signing, for rotation (ADR 042).

export type ConsoleSettingValues = Partial<Record<FormSettingSuffix, string>>;

export const SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;

const GeneratedSecretsSchema = z.object({
  secrets: z
    .array(z.object({ secret: z.string(), until: z.number().nullable() }))
    .min(1)
    .max(2),
});
export type GeneratedSecrets = z.infer<typeof GeneratedSecretsSchema>;

/** The additional data a value is sealed with: it opens only in its own row. */
export function settingContext(formId: string, name: string): string {
  return `form-setting:${formId}:${name}`;
}

/** Seals one setting's plain value for its row. */
export function sealSetting(key: SealingKey, formId: string, name: FormSettingSuffix, value: string): Promise<string> {
  return seal(key, value, settingContext(formId, name));
}

/** Whether Gatepost makes this setting's value (its kind's module says), so it is kept as GeneratedSecrets. */
export function isGeneratedSetting(name: string): boolean {
  return settingSpec(name)?.setting.generate !== undefined;
}

/** The stored form of a generated secret list. */
export function encodeGeneratedSecrets(secrets: GeneratedSecrets): string {
  return JSON.stringify(secrets);
}

/** A stored generated secret list, or null for anything else. Never throws. */
export function decodeGeneratedSecrets(text: string): GeneratedSecrets | null {
  try {
    const parsed = GeneratedSecretsSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** The secrets that sign at `nowMs`, space-separated as such a setting is in the environment. */
export function signingSecrets(secrets: GeneratedSecrets, nowMs: number): string {
  return secrets.secrets
    .filter((s) => s.until === null || s.until > nowMs)
    .map((s) => s.secret)
    .join(" ");
}

// Sealed values never change in place (a fresh IV each), so each is opened once per isolate.
const MAX_OPENED = 1000;
const opened = new Map<string, string | null>();

/** Opens every console setting row; one no key opens is listed in `unreadable`, never used. Never throws. */
export async function openSettingRows(
  rows: readonly SettingRow[],
  keys: readonly SealingKey[],
  nowMs: number,
): Promise<{ settings: Map<string, ConsoleSettingValues>; unreadable: { formId: string; name: string }[] }> {
  const settings = new Map<string, ConsoleSettingValues>();
  const unreadable: { formId: string; name: string }[] = [];
  for (const row of rows) {
    if (!(FORM_SETTING_SUFFIXES as readonly string[]).includes(row.name)) continue;
    const name = row.name as FormSettingSuffix;
    const memo = `${row.form_id}:${name}:${row.value}`;
    let plain = opened.get(memo);
    if (plain === undefined) {
      plain = await open(keys, row.value, settingContext(row.form_id, name));
      if (plain !== null) {
        if (opened.size >= MAX_OPENED) opened.delete(opened.keys().next().value!);
        opened.set(memo, plain);
      }
    }
    if (plain === null) {
      unreadable.push({ formId: row.form_id, name });
      continue;
    }
    const value = isGeneratedSetting(name) ? signingSecretsOf(plain, nowMs) : plain;
    settings.set(row.form_id, { ...settings.get(row.form_id), [name]: value });
  }
  return { settings, unreadable };
}

function signingSecretsOf(plain: string, nowMs: number): string {
  const secrets = decodeGeneratedSecrets(plain);
  return secrets ? signingSecrets(secrets, nowMs) : "";
}
