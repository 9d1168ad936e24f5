import { decodeBase64Url, encodeBase64Url } from "~/lib/crypto/base64";
import { sha256 } from "~/lib/crypto/digest";

// Console settings are sealed with AES-256-GCM under a key derived from SETTINGS_ENCRYPTION_KEY (ADR 042). A
// sealed value names its key, so keys rotate, and its additional data binds it to its row.

const VERSION = "v1";
const IV_BYTES = 12;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

export interface SealingKey {
  id: string;
  key: CryptoKey;
}

// Deriving a key costs a few hundred microseconds; the same one or two secrets seal every value.
const MAX_KEYS = 8;
const derived = new Map<string, SealingKey>();

/** The sealing key for one secret (32+ characters of SETTINGS_ENCRYPTION_KEY). */
export async function sealingKey(secret: string): Promise<SealingKey> {
  const known = derived.get(secret);
  if (known) return known;
  const material = await crypto.subtle.importKey("raw", encoder.encode(secret), "HKDF", false, ["deriveKey"]);
  const key = await crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: encoder.encode("gatepost-settings"), info: encoder.encode("aes-256-gcm v1") },
    material,
    { name: "AES-GCM", length: 256 },
    false,
    ["encrypt", "decrypt"],
  );
  const sealing = { id: encodeBase64Url(await sha256(`gatepost-key-id:${secret}`)).slice(0, 8), key };
  if (derived.size >= MAX_KEYS) derived.delete(derived.keys().next().value!);
  derived.set(secret, sealing);
  return sealing;
}

/** Seals `plaintext` under `key`, bound to `context` (e.g. "contact:<setting suffix>"). */
export async function seal(key: SealingKey, plaintext: string, context: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const sealed = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv, additionalData: encoder.encode(context) },
    key.key,
    encoder.encode(plaintext),
  );
  return [VERSION, key.id, encodeBase64Url(iv), encodeBase64Url(sealed)].join(".");
}

/** The id of the key that sealed `value`, or null when it is not a sealed value. */
export function sealedWith(value: string): string | null {
  const parts = value.split(".");
  return parts.length === 4 && parts[0] === VERSION ? parts[1] : null;
}

/** Opens a sealed value with whichever of `keys` sealed it; null when none fits or it was changed or moved. Never throws. */
export async function open(keys: readonly SealingKey[], value: string, context: string): Promise<string | null> {
  const [version, id, ivText, sealedText] = value.split(".");
  const key = keys.find((k) => k.id === id);
  const iv = decodeBase64Url(ivText ?? "");
  const sealed = decodeBase64Url(sealedText ?? "");
  if (version !== VERSION || !key || !iv || iv.length !== IV_BYTES || !sealed) return null;
  try {
    const plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv, additionalData: encoder.encode(context) }, key.key, sealed);
    return decoder.decode(plain);
  } catch {
    return null;
  }
}
