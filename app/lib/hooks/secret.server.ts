import { open, seal, sealingKey } from "~/lib/crypto/secret-box.server";

// A subscription's whsec_ secret is shown once, when it is made, and kept sealed under
// SETTINGS_ENCRYPTION_KEY like the console's settings (ADR 042), bound to its own row.

const contextOf = (id: string) => `hook-subscription:${id}`;

/** Seals a new subscription's secret under the first key; null when no key is set. */
export async function sealHookSecret(encryptionKeys: readonly string[], id: string, secret: string): Promise<string | null> {
  if (encryptionKeys.length === 0) return null;
  return seal(await sealingKey(encryptionKeys[0]), secret, contextOf(id));
}

/** Opens a subscription's secret with whichever key sealed it; null when none does. Never throws. */
export async function openHookSecret(encryptionKeys: readonly string[], id: string, sealed: string): Promise<string | null> {
  if (encryptionKeys.length === 0) return null;
  const keys = await Promise.all(encryptionKeys.map((key) => sealingKey(key)));
  return open(keys, sealed, contextOf(id));
}
