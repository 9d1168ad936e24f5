import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";

// `npm run seed` says what it replaces before it does, and leaves nothing the cron would deliver: a
// pending delivery would go to the local sink on the next scheduled run of `npm start`.

const ROOT = path.resolve(__dirname, "../..");
const persistTo = mkdtempSync(path.join(tmpdir(), "gatepost-seed-"));
const D1_DIR = path.join(persistTo, "v3/d1/miniflare-D1DatabaseObject");
const run = promisify(execFile);

/** A local D1 file as wrangler's migrations leave it, made from migrations/ directly (wrangler takes a minute). */
function migrate(): string {
  mkdirSync(D1_DIR, { recursive: true });
  const file = path.join(D1_DIR, "seed-test.sqlite");
  const db = new Database(file);
  const dir = path.join(ROOT, "migrations");
  for (const name of readdirSync(dir)
    .filter((n) => n.endsWith(".sql"))
    .sort())
    db.exec(readFileSync(path.join(dir, name), "utf8"));
  db.close();
  return file;
}

/** Runs the seed as `npm run seed` does, without blocking this process. */
async function seed(submissions: number): Promise<string> {
  const args = ["vite-node", "--config", "vitest.config.ts", "scripts/seed.ts", "--", "--submissions", String(submissions)];
  const options = ["--days", "1", "--skip-migrations", "--persist-to", persistTo];
  return (await run("npx", [...args, ...options], { cwd: ROOT, timeout: 240_000 })).stdout;
}

afterAll(() => rmSync(persistTo, { recursive: true, force: true }));

describe("npm run seed", () => {
  it("says what it replaces before replacing it, and leaves no delivery for the cron to send", async () => {
    const file = migrate();
    const first = await seed(300);
    expect(first).toMatch(/replacing the 0 submissions and 0 deliveries/);
    const second = await seed(200);
    const said = second.indexOf("replacing the 300 submissions and");
    expect(said).toBeGreaterThanOrEqual(0);
    expect(said).toBeLessThan(second.indexOf("seed: 200 submissions"));

    const db = new Database(file, { readonly: true });
    try {
      expect(db.prepare("SELECT COUNT(*) AS n FROM submissions").get()).toEqual({ n: 200 });
      // All 200 arrived within the last day, a few within the last hour: none of them waits for the cron.
      expect(db.prepare("SELECT COUNT(*) AS n FROM deliveries WHERE status = 'pending'").get()).toEqual({ n: 0 });
      expect(db.prepare("SELECT COUNT(*) AS n FROM submissions WHERE state = 'pending'").get()).toEqual({ n: 0 });
      expect((db.prepare("SELECT COUNT(*) AS n FROM deliveries WHERE status = 'delivered'").get() as { n: number }).n).toBeGreaterThan(0);
    } finally {
      db.close();
    }
  }, 300_000);
});
