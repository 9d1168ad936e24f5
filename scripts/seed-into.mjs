import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** Runs `npm run seed` into the migrated state folder `persistTo`; resolves to its seconds, throws with its output. */
export function seedInto(persistTo, submissions, { timeoutMs = 15 * 60_000, unindexed = 0 } = {}) {
  const start = Date.now();
  const args = ["vite-node", "--config", "vitest.config.ts", "scripts/seed.ts", "--", "--submissions", String(submissions)];
  if (unindexed > 0) args.push("--unindexed", String(unindexed));
  const done = spawnSync("npx", [...args, "--skip-migrations", "--persist-to", persistTo], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: timeoutMs,
  });
  if (done.status !== 0) throw new Error(`npm run seed failed:\n${done.stdout}\n${done.stderr}`);
  return (Date.now() - start) / 1000;
}
