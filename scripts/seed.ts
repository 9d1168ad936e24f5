// `npm run seed -- --submissions N`: fills the LOCAL D1 (never a remote one: no flag reaches it) with N submissions
// shaped like a busy deployment's, written straight into the SQLite file after the migrations, replacing what it held.
// `--unmoved`: as from before migration 0021 (ADR 060); `--unindexed N`: the newest N not in the search index (ADR 101).
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import Database from "better-sqlite3";
import type { FieldValue } from "~/forms/schema";
import { searchTextOf } from "~/lib/storage/search-text.server";

const DAY_MS = 86_400_000;

function fail(message: string): never {
  console.error(`seed: ${message}`);
  process.exit(2);
}

const argv = process.argv.slice(2).filter((arg) => arg !== "--");
if (argv.some((arg) => /^--(remote|preview|env)\b/.test(arg))) fail("it writes the local D1 database only; --remote is refused.");
let options: {
  submissions?: string;
  days?: string;
  unmoved?: boolean;
  unindexed?: string;
  "skip-migrations"?: boolean;
  "persist-to"?: string;
};
try {
  ({ values: options } = parseArgs({
    args: argv,
    options: {
      submissions: { type: "string" },
      days: { type: "string" },
      unmoved: { type: "boolean" },
      unindexed: { type: "string" },
      "skip-migrations": { type: "boolean" },
      "persist-to": { type: "string" },
    },
    strict: true,
  }));
} catch (error) {
  fail(`${(error as Error).message}. Usage: npm run seed -- --submissions N [--days 180] [--unmoved] [--unindexed N]`);
}
const total = Number(options.submissions);
if (!Number.isInteger(total) || total < 1 || total > 10_000_000) fail("--submissions takes a whole number from 1 to 10,000,000.");
const days = options.days === undefined ? 180 : Number(options.days);
if (!(days > 0 && days <= 3650)) fail("--days takes a number of days from 1 to 3650.");
const unindexed = options.unindexed === undefined ? 0 : Number(options.unindexed);
if (!Number.isInteger(unindexed) || unindexed < 0 || unindexed > total) fail("--unindexed takes a whole number from 0 to --submissions.");

const persistTo = path.resolve(options["persist-to"] ?? ".wrangler/state");
const STATE_DIR = path.join(persistTo, "v3/d1/miniflare-D1DatabaseObject");
if (!options["skip-migrations"]) {
  execFileSync("npx", ["wrangler", "d1", "migrations", "apply", "gatepost", "--local", "--persist-to", persistTo], {
    stdio: ["ignore", "ignore", "inherit"],
    env: { ...process.env, CI: "1" },
  });
}

/** The local database file: the one of wrangler's local D1 files that holds Gatepost's tables. */
function localDatabase(): string {
  if (!existsSync(STATE_DIR)) fail(`no local D1 database under ${STATE_DIR}: run \`npm start\` or the migrations once.`);
  const files = readdirSync(STATE_DIR)
    .filter((name) => name.endsWith(".sqlite"))
    .map((name) => path.join(STATE_DIR, name));
  const ours = files.filter((file) => {
    const db = new Database(file, { readonly: true });
    try {
      return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'submissions'").get() !== undefined;
    } finally {
      db.close();
    }
  });
  if (ours.length !== 1) fail(`expected one local D1 database with a submissions table, found ${ours.length}.`);
  return ours[0];
}

const file = localDatabase();
const db = new Database(file);
db.pragma("synchronous = OFF");
const started = Date.now();

const held = db
  .prepare("SELECT (SELECT COUNT(*) FROM submissions) AS submissions, (SELECT COUNT(*) FROM deliveries) AS deliveries")
  .get() as {
  submissions: number;
  deliveries: number;
};
console.log(
  `seed: replacing the ${held.submissions} submissions and ${held.deliveries} deliveries (with their attempts and counts) in ${path.relative(process.cwd(), file)} with ${total} seeded submissions; the audit log is kept.`,
);

// The triggers keep counts and the index row by row; a seed builds them once at the end instead.
const triggers = db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'").all() as Array<{ name: string; sql: string }>;
for (const { name } of triggers) db.exec(`DROP TRIGGER ${name}`);
db.exec(`DELETE FROM delivery_attempts; DELETE FROM deliveries; DELETE FROM submissions; DELETE FROM submission_counts;
  DELETE FROM submission_totals; DELETE FROM dead_delivery_counts; INSERT INTO submissions_fts (submissions_fts) VALUES ('delete-all');`);

const FIRST = ["Zoë", "Ana", "Jonas", "Mei", "Olu", "Sven", "Priya", "Léa", "Omar", "Kasia", "Tomás", "Aiko", "Björn", "Chloé", "Dmitri"];
const LAST = ["Ångström", "Okafor", "Müller", "Nguyen", "García", "Kowalski", "Rossi", "Haddad", "Sato", "Dubois", "Silva", "Novak"];
const WORDS = "please call back about the quote order delivery invoice question thanks meeting hiring role portfolio".split(" ");

const insertSubmission = db.prepare(
  `INSERT INTO submissions (id, form_id, fields, received_at, status, quarantine_reason, verify_hostname, verify_action,
     verify_challenge_ts, search_text, form_version, test, state)
   VALUES (?, ?, ?, ?, ?, ?, 'forms.example.org', ?, ?, ?, ?, 0, ?)`,
);
const insertDelivery = db.prepare(
  `INSERT INTO deliveries (id, submission_id, form_id, destination, status, attempts, next_attempt_at, last_error, created_at, delivered_at)
   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
);
const insertAttempt = db.prepare(
  `INSERT INTO delivery_attempts (delivery_id, attempted_at, http_status, error, latency_ms, response_excerpt) VALUES (?, ?, ?, ?, ?, ?)`,
);
const insertAudit = db.prepare(
  `INSERT INTO audit_log (at, actor, role, action, target, detail, ip) VALUES (?, 'password:admin', 'admin', ?, ?, ?, '203.0.113.9')`,
);

const now = Date.now();
const span = days * DAY_MS;
/** A small deterministic generator, so two seeds of the same size are the same. */
let seed = 42;
const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)];
const hex = (n: number, width: number) => n.toString(16).padStart(width, "0");

function fieldsOf(form: string, i: number, name: string, email: string): Record<string, FieldValue> {
  if (form === "newsletter") return { email, name };
  const message = Array.from({ length: 8 + (i % 12) }, () => pick(WORDS)).join(" ");
  if (form === "contact") return { name, email, message };
  const cv = [
    {
      id: `${hex(i, 8)}-0000-7000-8000-${hex(i, 12)}`,
      name: `cv-${i}.pdf`,
      type: "application/pdf",
      size: 40_000 + (i % 9000),
      sha256: hex(i, 64),
    },
  ];
  return { name, email, message, cv };
}

const CHUNK = 25_000;
const write = db.transaction((from: number, to: number) => {
  for (let i = from; i < to; i++) {
    // Oldest first, as they arrived. None is left pending: the cron would send it to the local sink.
    const receivedMs = now - span + Math.floor(((i + random()) / total) * span);
    const at = new Date(receivedMs).toISOString();
    const form = i % 20 < 12 ? "contact" : i % 20 < 17 ? "newsletter" : "apply";
    const id = `${hex(Math.floor(receivedMs / 1000), 8)}-${hex(i >>> 16, 4)}-4${hex(i & 0xfff, 3)}-8000-${hex(i, 12)}`;
    const first = pick(FIRST);
    const last = pick(LAST);
    const email = `${first}.${last}${i}@example.org`
      .normalize("NFD")
      .replace(/[\u0300-\u036f]/g, "")
      .toLowerCase();
    const fields = fieldsOf(form, i, `${first} ${last}`, email);
    const quarantined = i % 50 === 7;
    const dead = !quarantined && i % 100 === 3;
    const state = quarantined ? "quarantined" : dead ? "dead" : "delivered";
    insertSubmission.run(
      id,
      form,
      JSON.stringify(fields),
      at,
      quarantined ? "quarantined" : "accepted",
      quarantined ? "honeypot filled" : null,
      form,
      at,
      searchTextOf(fields),
      `code-${form}`,
      options.unmoved ? null : state,
    );
    if (quarantined) continue;
    const destinations = i % 5 < 3 ? ["webhook", "email"] : ["webhook"];
    for (const destination of destinations) {
      const deliveryId = `msg_${hex(i, 12)}${destination[0]}`;
      const status = destination === "webhook" && dead ? "dead" : "delivered";
      const attempts = status === "dead" ? 8 : 1;
      insertDelivery.run(
        deliveryId,
        id,
        form,
        destination,
        status,
        attempts,
        receivedMs + 60_000,
        status === "dead" ? "http_status 503" : null,
        at,
        status === "delivered" ? at : null,
      );
      for (let a = 0; a < attempts; a++) {
        const failed = status === "dead";
        insertAttempt.run(
          deliveryId,
          new Date(receivedMs + a * 60_000).toISOString(),
          failed ? 503 : 200,
          failed ? "http_status" : null,
          failed ? 10_000 : 80 + (i % 300),
          failed ? "Service Unavailable" : null,
        );
      }
    }
  }
});
for (let from = 0; from < total; from += CHUNK) write(from, Math.min(total, from + CHUNK));

const audits = Math.max(10, Math.floor(total / 100));
db.transaction(() => {
  for (let k = 0; k < audits; k++) {
    const action = pick(["sign-in", "export", "submission.redeliver", "submission.delete", "erase.preview"]);
    insertAudit.run(
      new Date(now - span + Math.floor((k / audits) * span)).toISOString(),
      action,
      pick(["contact", "newsletter", "apply", null]),
      '{"seed":true}',
    );
  }
})();

// What the triggers and the cron would have kept, built once (ADR 101).
db.exec(`
  INSERT INTO submission_counts (form_id, day, state, test, n)
    SELECT form_id, substr(received_at, 1, 10), state, test, COUNT(*) FROM submissions WHERE state IS NOT NULL GROUP BY 1, 2, 3, 4;
  INSERT INTO submission_totals (form_id, state, test, n)
    SELECT form_id, state, test, COUNT(*) FROM submissions WHERE state IS NOT NULL GROUP BY 1, 2, 3;
  INSERT INTO dead_delivery_counts (form_id, n) SELECT form_id, COUNT(*) FROM deliveries WHERE status = 'dead' GROUP BY form_id;
  UPDATE search_index SET indexed_up_to = max(0, (SELECT coalesce(max(rowid), 0) FROM submissions) - ${unindexed}) WHERE id = 1;
  INSERT INTO submissions_fts (rowid, search_text) SELECT rowid, coalesce(search_text, '') FROM submissions
    WHERE state IS NOT NULL AND rowid <= (SELECT indexed_up_to FROM search_index WHERE id = 1);
`);
// A one-statement index leaves FTS5 a pending merge every later insert advances (300 µs against 40 µs an insert at
// 1,000,000 rows): merged, the seed's index costs later accepts what a grown one does.
db.exec("INSERT INTO submissions_fts (submissions_fts) VALUES ('optimize')");
for (const { sql } of triggers) db.exec(sql);
db.close();
const seconds = ((Date.now() - started) / 1000).toFixed(1);
console.log(
  `seed: ${total} submissions${options.unmoved ? " (not yet moved)" : ""}${unindexed ? ` (the newest ${unindexed} not indexed)` : ""} over ${days} days in ${seconds} s → ${path.relative(process.cwd(), file)}`,
);
