// What `npm run deploy` decides and does, behind one seam: `wrangler` answers what exists on the account and
// makes changes, `ask` gets what only the owner knows (deploy.mjs: the CLI; tests: an account in memory).
import { randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";

/** Secrets no person should have to type: generated once, never rotated by a later deploy. */
export const GENERATED_SECRETS = ["SESSION_SECRET", "FORM_SIGNING_SECRET", "FILE_LINK_SECRET", "SETTINGS_ENCRYPTION_KEY"];
/** Cloudflare's documented dummy keys: fine locally, never deployed (the dummy secret accepts any token). */
const DUMMY_KEY = /^[123]x0{20,}AA$/;

/** The names and values a deploy needs from wrangler.toml. */
export function readConfig(file) {
  const text = readFileSync(file, "utf8");
  const d1 = section(text, "[[d1_databases]]");
  const r2 = section(text, "[[r2_buckets]]");
  const vars = section(text, "[vars]");
  return {
    name: /^name\s*=\s*"([^"]+)"/m.exec(text)?.[1] ?? null,
    databaseName: /^database_name\s*=\s*"([^"]+)"/m.exec(d1)?.[1] ?? null,
    databaseId: /^database_id\s*=\s*"([^"]*)"/m.exec(d1)?.[1] || null,
    bucketName: /^bucket_name\s*=\s*"([^"]+)"/m.exec(r2)?.[1] ?? null,
    siteKey: /^TURNSTILE_SITE_KEY\s*=\s*"([^"]*)"/m.exec(vars)?.[1] || null,
    queues: queueNames(text),
  };
}

/** Every queue the config binds (producers, consumers and their dead-letter queues), once each; none while commented out. */
function queueNames(text) {
  const names = new Set();
  for (const block of text.matchAll(/^\[\[queues\.(?:producers|consumers)\]\]\n((?:(?!\[)[^\n]*\n?)*)/gm)) {
    for (const line of block[1].matchAll(/^(?:queue|dead_letter_queue)\s*=\s*"([^"]+)"/gm)) names.add(line[1]);
  }
  return [...names];
}

/** Writes the database id (after database_name) and the sitekey into wrangler.toml, keeping the rest as it is. */
export function writeConfig(file, { databaseId, siteKey }) {
  let text = readFileSync(file, "utf8");
  if (databaseId) {
    text = replaceInSection(text, "[[d1_databases]]", (body) =>
      /^database_id\s*=/m.test(body)
        ? body.replace(/^database_id\s*=.*$/m, `database_id = "${databaseId}"`)
        : body.replace(/^(database_name\s*=.*)$/m, `$1\ndatabase_id = "${databaseId}"`),
    );
  }
  if (siteKey) {
    text = replaceInSection(text, "[vars]", (body) => body.replace(/^TURNSTILE_SITE_KEY\s*=.*$/m, `TURNSTILE_SITE_KEY = "${siteKey}"`));
  }
  writeFileSync(file, text);
}

function sectionBounds(text, header) {
  const start = text.indexOf(`\n${header}\n`);
  if (start < 0) return null;
  const bodyStart = start + header.length + 2;
  const next = text.slice(bodyStart).search(/^\[/m);
  return [bodyStart, next < 0 ? text.length : bodyStart + next];
}

function section(text, header) {
  const bounds = sectionBounds(text, header);
  return bounds ? text.slice(...bounds) : "";
}

function replaceInSection(text, header, edit) {
  const bounds = sectionBounds(text, header);
  if (!bounds) throw new Error(`wrangler.toml has no ${header} section`);
  return text.slice(0, bounds[0]) + edit(text.slice(...bounds)) + text.slice(bounds[1]);
}

/** What this deploy must do, from the account's `state` and wrangler.toml's `config`. Pure: no call is made. */
export function planDeploy(state, config) {
  const existing = state.databases.find((db) => db.name === config.databaseName);
  const secrets = new Set(state.secrets);
  return {
    createDatabase: !existing,
    databaseId: existing?.uuid ?? null,
    writeDatabaseId: !existing || existing.uuid !== config.databaseId,
    createBucket: !state.buckets.includes(config.bucketName),
    generate: GENERATED_SECRETS.filter((name) => !secrets.has(name)),
    ask: [
      ...(config.siteKey ? [] : ["TURNSTILE_SITE_KEY"]),
      ...(secrets.has("TURNSTILE_SECRET_KEY") ? [] : ["TURNSTILE_SECRET_KEY"]),
      ...(secrets.has("ADMIN_PASSWORD_HASH") ? [] : ["ADMIN_PASSWORD"]),
    ],
  };
}

/** Refuses answers that would deploy a broken or open site; returns a list of problems. */
export function checkAnswers(answers) {
  const problems = [];
  for (const name of ["TURNSTILE_SITE_KEY", "TURNSTILE_SECRET_KEY"]) {
    if (!(name in answers)) continue;
    if (!answers[name]) problems.push(`${name} is empty`);
    else if (DUMMY_KEY.test(answers[name])) problems.push(`${name} is one of Cloudflare's dummy test keys`);
  }
  if ("ADMIN_PASSWORD" in answers && (answers.ADMIN_PASSWORD ?? "").length < 12) {
    problems.push("ADMIN_PASSWORD must be at least 12 characters");
  }
  return problems;
}

/** Reads the account, plans, asks, then creates, migrates, deploys and stores missing secrets; nothing changes before the answers and the build pass. */
export async function runDeploy({ wrangler, ask, hashPassword, build, configFile, log = console.log }) {
  if (!(await wrangler.whoami())) throw new Error("Not signed in to Cloudflare: run `npx wrangler login` first.");
  const config = readConfig(configFile);
  const state = { databases: await wrangler.listDatabases(), buckets: await wrangler.listBuckets(), secrets: await wrangler.listSecrets() };
  const plan = planDeploy(state, config);
  const answers = plan.ask.length > 0 ? await ask(plan.ask) : {};
  const problems = checkAnswers(answers);
  if (problems.length > 0) throw new Error(`Not deployed:\n- ${problems.join("\n- ")}`);
  await build();

  let databaseId = plan.databaseId;
  if (plan.createDatabase) {
    log(`Creating the D1 database ${config.databaseName}…`);
    await wrangler.createDatabase(config.databaseName);
    databaseId = (await wrangler.listDatabases()).find((db) => db.name === config.databaseName)?.uuid;
    if (!databaseId) throw new Error(`The D1 database ${config.databaseName} was created but is not listed`);
  }
  if (plan.writeDatabaseId || answers.TURNSTILE_SITE_KEY) {
    writeConfig(configFile, { databaseId: plan.writeDatabaseId ? databaseId : null, siteKey: answers.TURNSTILE_SITE_KEY });
    log(
      `Wrote ${[plan.writeDatabaseId ? "the database id" : "", answers.TURNSTILE_SITE_KEY ? "the sitekey" : ""].filter(Boolean).join(" and ")} into wrangler.toml: commit it.`,
    );
  }
  if (plan.createBucket) {
    log(`Creating the R2 bucket ${config.bucketName}…`);
    await wrangler.createBucket(config.bucketName);
  }
  // ADR 070: wrangler 4.72 does not create queues on deploy.
  const queues = [];
  for (const name of config.queues) {
    if (await wrangler.ensureQueue(name)) {
      log(`Created the queue ${name}.`);
      queues.push(name);
    }
  }
  await wrangler.applyMigrations();
  await wrangler.deploy();

  const secrets = {};
  for (const name of plan.generate) secrets[name] = randomBytes(48).toString("base64url");
  if (answers.TURNSTILE_SECRET_KEY) secrets.TURNSTILE_SECRET_KEY = answers.TURNSTILE_SECRET_KEY;
  if (answers.ADMIN_PASSWORD) secrets.ADMIN_PASSWORD_HASH = await hashPassword(answers.ADMIN_PASSWORD);
  if (Object.keys(secrets).length > 0) {
    log(`Storing ${Object.keys(secrets).join(", ")} as secrets of the Worker…`);
    await wrangler.putSecrets(secrets);
  }
  return { plan, created: { database: plan.createDatabase, bucket: plan.createBucket, queues }, secrets: Object.keys(secrets) };
}
