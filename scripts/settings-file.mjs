// Settings reach wrangler in a dotenv file only this user can read, removed on stop; never `--var`, which `ps`
// shows every user (ADR 111).
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

/** One value as dotenv reads it back unchanged, `$` escaped for dotenv-expand; throws for what no quoting carries. */
function quoteValue(key, value) {
  const quote = ["'", "`", '"'].find((q) => !value.includes(q));
  if (!quote || (quote === '"' && /\\[nr]/.test(value)) || value.includes("\r")) {
    throw new Error(`${key} holds quotes or a carriage return that an env file cannot carry`);
  }
  return `${quote}${value.replace(/\$/g, "\\$")}${quote}`;
}

/** The settings as dotenv text, one KEY='value' a line; an undefined one is left out. */
export function settingsFileText(settings) {
  return Object.entries(settings)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `${key}=${quoteValue(key, String(value))}`)
    .join("\n")
    .concat("\n");
}

/** Writes `settings` to a fresh 0700 folder (the file 0600); returns { path, remove }. Throws when a value cannot be written. */
export function writeSettingsFile(settings, { name = "gatepost-settings-" } = {}) {
  const text = settingsFileText(settings);
  const dir = mkdtempSync(path.join(tmpdir(), name));
  chmodSync(dir, 0o700);
  const file = path.join(dir, "dev.vars");
  writeFileSync(file, text, { mode: 0o600 });
  const remove = () => {
    process.off("exit", remove);
    rmSync(dir, { recursive: true, force: true });
  };
  process.on("exit", remove);
  return { path: file, remove };
}
