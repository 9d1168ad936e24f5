// How the local entry points hand settings to wrangler (`wrangler dev --env-file`, the platform proxy
// of `npm run dev`): a dotenv file only this user can read, in a folder of its own, removed on stop.
// Never `--var`: a command line is readable by every user of the machine in `ps` (ADR 111).
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

/**
 * One value as dotenv 16 reads it back unchanged: quoted with the first of ' ` " it does not hold, `$`
 * escaped for the dotenv-expand pass wrangler runs after. Throws for what no quoting carries: all three
 * quotes, a \n or \r escape inside double quotes (dotenv turns it into a line break), a carriage return.
 */
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

/**
 * Writes `settings` to a fresh folder under the system's temporary one (mode 0700, the file 0600) and
 * returns { path, remove }. remove() deletes the folder; it also runs if this process exits first.
 * Throws when a value cannot be written (settingsFileText).
 */
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
