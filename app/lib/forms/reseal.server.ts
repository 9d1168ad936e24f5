import { open, seal, sealingKey } from "~/lib/crypto/secret-box.server";
import { settingContext } from "~/lib/forms/console-settings.server";
import { listSettingsSealedWithOtherKeys, resealStatement } from "~/lib/storage/forms.server";

// Key rotation (docs/destinations.md): with a new key put first in SETTINGS_ENCRYPTION_KEY and the old
// one kept after it, the cron seals every console setting again under the new key, a batch a minute;
// once it reports nothing left, the old key can go.

const PER_RUN = 100;

export interface ResealReport {
  resealed: number;
  /** Values none of the keys open: they stay as they are, and the dashboard names them. */
  unreadable: number;
}

/** Seals up to PER_RUN values again under the first key. D1 errors throw; without keys it does nothing. */
export async function resealSettings(db: D1Database, encryptionKeys: readonly string[]): Promise<ResealReport> {
  if (encryptionKeys.length === 0) return { resealed: 0, unreadable: 0 };
  const keys = await Promise.all(encryptionKeys.map(sealingKey));
  const rows = await listSettingsSealedWithOtherKeys(db, keys[0].id, PER_RUN);
  const statements: D1PreparedStatement[] = [];
  let unreadable = 0;
  for (const row of rows) {
    const context = settingContext(row.form_id, row.name);
    const plain = await open(keys, row.value, context);
    if (plain === null) {
      unreadable += 1;
      continue;
    }
    statements.push(resealStatement(db, row, await seal(keys[0], plain, context)));
  }
  if (statements.length > 0) await db.batch(statements);
  return { resealed: statements.length, unreadable };
}
