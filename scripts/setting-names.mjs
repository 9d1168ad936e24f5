// Every setting the app reads, from wrangler.toml's [vars] and .env.example, so `npm start` passes each on.
import { readFileSync } from "node:fs";

const ROOT = new URL("..", import.meta.url);

/** The names of every var and secret the app is configured with. Throws if a file is unreadable. */
export function settingNames(root = ROOT) {
  const names = new Set();
  const toml = readFileSync(new URL("wrangler.toml", root), "utf8");
  const vars = toml.split(/^\[vars\]\s*$/m)[1]?.split(/^\[/m)[0] ?? "";
  for (const match of vars.matchAll(/^([A-Z][A-Z0-9_]*)\s*=/gm)) names.add(match[1]);
  const secrets = readFileSync(new URL(".env.example", root), "utf8");
  for (const match of secrets.matchAll(/^([A-Z][A-Z0-9_]*)=/gm)) names.add(match[1]);
  return names;
}
