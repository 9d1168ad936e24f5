import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
// @ts-expect-error - plain ESM module run by `npm run deploy`
import { checkAnswers, GENERATED_SECRETS, planDeploy, readConfig, runDeploy } from "../../scripts/deploy-plan.mjs";

// `npm run deploy`'s decisions against an account held in memory: what exists, what it creates,
// which secrets it stores, and that a second run creates nothing and changes no secret. The real
// wrangler.toml is copied, so the id it writes lands where wrangler reads it.

const ROOT = path.resolve(__dirname, "../..");
const ANSWERS = {
  TURNSTILE_SITE_KEY: "0x4AAAAAAAsitekeyFromTheDashboard",
  TURNSTILE_SECRET_KEY: "0x4AAAAAAAsecretFromTheDashboard",
  ADMIN_PASSWORD: "a long passphrase for the console",
};

/** A Cloudflare account: resources by name, the Worker's secrets, and every call made. */
function fakeAccount({ signedIn = true } = {}) {
  const account = {
    databases: [] as Array<{ name: string; uuid: string }>,
    buckets: [] as string[],
    queues: [] as string[],
    secrets: new Map<string, string>(),
    calls: [] as string[],
    deployed: 0,
  };
  const wrangler = {
    whoami: async () => (signedIn ? "owner@example.org" : null),
    listDatabases: async () => [...account.databases],
    createDatabase: async (name: string) => {
      account.calls.push(`d1 create ${name}`);
      account.databases.push({ name, uuid: `uuid-${account.databases.length + 1}` });
    },
    listBuckets: async () => [...account.buckets],
    createBucket: async (name: string) => {
      account.calls.push(`r2 bucket create ${name}`);
      account.buckets.push(name);
    },
    listSecrets: async () => [...account.secrets.keys()],
    putSecrets: async (secrets: Record<string, string>) => {
      account.calls.push(`secret bulk ${Object.keys(secrets).join(",")}`);
      for (const [name, value] of Object.entries(secrets)) account.secrets.set(name, value);
    },
    ensureQueue: async (name: string) => {
      if (account.queues.includes(name)) return false;
      account.calls.push(`queues create ${name}`);
      account.queues.push(name);
      return true;
    },
    applyMigrations: async () => void account.calls.push("d1 migrations apply --remote"),
    deploy: async () => {
      account.calls.push("deploy");
      account.deployed += 1;
    },
  };
  return { account, wrangler };
}

let dir = "";
let configFile = "";
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "gatepost-deploy-"));
  configFile = path.join(dir, "wrangler.toml");
  copyFileSync(path.join(ROOT, "wrangler.toml"), configFile);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function deploy(wrangler: unknown, asked: string[][] = []) {
  return runDeploy({
    wrangler,
    configFile,
    ask: async (names: string[]) => {
      asked.push(names);
      return Object.fromEntries(names.map((name) => [name, ANSWERS[name as keyof typeof ANSWERS]]));
    },
    hashPassword: async (password: string) => `hash-of(${password})`,
    build: async () => {},
    log: () => {},
  });
}

describe("npm run deploy", () => {
  it("reads the names it needs from the real wrangler.toml, which carries no database id and no sitekey", () => {
    expect(readConfig(path.join(ROOT, "wrangler.toml"))).toEqual({
      name: "gatepost",
      databaseName: "gatepost",
      databaseId: null,
      bucketName: "gatepost-uploads",
      siteKey: null,
      // The export queue is on (docs/decisions/109); the delivery queue is off until an owner uncomments it (070).
      queues: ["gatepost-exports"],
    });
  });

  it("creates the delivery queue and its dead-letter queue once wrangler.toml turns them on, and never twice", async () => {
    const text = readFileSync(configFile, "utf8");
    const on = text.replace(/^# (\[\[queues\.|binding = |queue = |max_|dead_letter_queue = )/gm, "$1");
    writeFileSync(configFile, on);
    expect(readConfig(configFile).queues).toEqual(["gatepost-exports", "gatepost-deliveries", "gatepost-deliveries-dlq"]);
    const { account, wrangler } = fakeAccount();
    expect((await deploy(wrangler)).created.queues).toEqual(["gatepost-exports", "gatepost-deliveries", "gatepost-deliveries-dlq"]);
    expect(account.calls.filter((call) => call.startsWith("queues"))).toEqual([
      "queues create gatepost-exports",
      "queues create gatepost-deliveries",
      "queues create gatepost-deliveries-dlq",
    ]);
    account.calls.length = 0;
    expect((await deploy(wrangler)).created.queues).toEqual([]);
    expect(account.calls).toEqual(["d1 migrations apply --remote", "deploy"]);
  });

  it("takes a fresh account to a deployed Worker, then a second run creates nothing and changes no secret", async () => {
    const { account, wrangler } = fakeAccount();
    const asked: string[][] = [];
    const first = await deploy(wrangler, asked);
    expect(account.calls).toEqual([
      "d1 create gatepost",
      "r2 bucket create gatepost-uploads",
      "queues create gatepost-exports",
      "d1 migrations apply --remote",
      "deploy",
      "secret bulk SESSION_SECRET,FORM_SIGNING_SECRET,FILE_LINK_SECRET,SETTINGS_ENCRYPTION_KEY,TURNSTILE_SECRET_KEY,ADMIN_PASSWORD_HASH",
    ]);
    expect(asked).toEqual([["TURNSTILE_SITE_KEY", "TURNSTILE_SECRET_KEY", "ADMIN_PASSWORD"]]);
    expect(first.created).toEqual({ database: true, bucket: true, queues: ["gatepost-exports"] });
    // The id and the sitekey land where wrangler reads them; the password only as its hash.
    expect(readConfig(configFile)).toMatchObject({ databaseId: "uuid-1", siteKey: ANSWERS.TURNSTILE_SITE_KEY });
    expect(readFileSync(configFile, "utf8")).toMatch(/database_name = "gatepost"\ndatabase_id = "uuid-1"\n/);
    expect(account.secrets.get("ADMIN_PASSWORD_HASH")).toBe(`hash-of(${ANSWERS.ADMIN_PASSWORD})`);
    const generated = ["SESSION_SECRET", "FORM_SIGNING_SECRET", "FILE_LINK_SECRET", "SETTINGS_ENCRYPTION_KEY"].map((name) =>
      account.secrets.get(name)!,
    );
    expect(generated.every((value) => /^[A-Za-z0-9_-]{64}$/.test(value))).toBe(true);
    expect(new Set(generated).size).toBe(4);

    const secretsBefore = new Map(account.secrets);
    const configBefore = readFileSync(configFile, "utf8");
    account.calls.length = 0;
    const second = await deploy(wrangler, asked);
    expect(account.calls).toEqual(["d1 migrations apply --remote", "deploy"]);
    expect(asked).toHaveLength(1);
    expect(second.created).toEqual({ database: false, bucket: false, queues: [] });
    expect(second.secrets).toEqual([]);
    expect(account.secrets).toEqual(secretsBefore);
    expect(readFileSync(configFile, "utf8")).toBe(configBefore);
  });

  it("finds a database made before (a new clone of a deployed site) and writes its id without creating one", async () => {
    const { account, wrangler } = fakeAccount();
    account.databases.push({ name: "gatepost", uuid: "existing-uuid" }, { name: "other", uuid: "x" });
    account.buckets.push("gatepost-uploads");
    account.queues.push("gatepost-exports");
    for (const name of [
      "SESSION_SECRET",
      "FORM_SIGNING_SECRET",
      "FILE_LINK_SECRET",
      "SETTINGS_ENCRYPTION_KEY",
      "TURNSTILE_SECRET_KEY",
      "ADMIN_PASSWORD_HASH",
    ])
      account.secrets.set(name, "kept");
    const asked: string[][] = [];
    await deploy(wrangler, asked);
    expect(account.calls).toEqual(["d1 migrations apply --remote", "deploy"]);
    expect(asked).toEqual([["TURNSTILE_SITE_KEY"]]);
    expect(readConfig(configFile).databaseId).toBe("existing-uuid");
    expect([...account.secrets.values()].every((value) => value === "kept")).toBe(true);
  });

  it("changes nothing on the account when it cannot go all the way", async () => {
    const signedOut = fakeAccount({ signedIn: false });
    await expect(deploy(signedOut.wrangler)).rejects.toThrow(/wrangler login/);
    expect(signedOut.account.calls).toEqual([]);

    const { account, wrangler } = fakeAccount();
    const refused = runDeploy({
      wrangler,
      configFile,
      ask: async () => ({ TURNSTILE_SITE_KEY: "1x00000000000000000000AA", TURNSTILE_SECRET_KEY: "", ADMIN_PASSWORD: "short" }),
      hashPassword: async () => "",
      build: async () => {},
      log: () => {},
    });
    await expect(refused).rejects.toThrow(/dummy test keys[\s\S]*TURNSTILE_SECRET_KEY is empty[\s\S]*12 characters/);
    expect(account.calls).toEqual([]);
    expect(readConfig(configFile).databaseId).toBeNull();

    const failingBuild = runDeploy({
      wrangler,
      configFile,
      ask: async (names: string[]) => Object.fromEntries(names.map((name) => [name, ANSWERS[name as keyof typeof ANSWERS]])),
      hashPassword: async () => "",
      build: async () => Promise.reject(new Error("The build failed.")),
      log: () => {},
    });
    await expect(failingBuild).rejects.toThrow("The build failed.");
    expect(account.calls).toEqual([]);
  });

  it("plans from what exists, and checks answers", () => {
    const config = { databaseName: "gatepost", databaseId: "a", bucketName: "b", siteKey: "k" };
    expect(planDeploy({ databases: [{ name: "gatepost", uuid: "a" }], buckets: ["b"], secrets: ["SESSION_SECRET"] }, config)).toEqual({
      createDatabase: false,
      databaseId: "a",
      writeDatabaseId: false,
      createBucket: false,
      generate: ["FORM_SIGNING_SECRET", "FILE_LINK_SECRET", "SETTINGS_ENCRYPTION_KEY"],
      ask: ["TURNSTILE_SECRET_KEY", "ADMIN_PASSWORD"],
    });
    expect(checkAnswers({ TURNSTILE_SECRET_KEY: "2x0000000000000000000000000000000AA" })).toEqual([
      "TURNSTILE_SECRET_KEY is one of Cloudflare's dummy test keys",
    ]);
    expect(checkAnswers(ANSWERS)).toEqual([]);
  });
});

describe("docs/deploy.md", () => {
  it("names every secret npm run deploy generates, in the line that says what it generates", () => {
    const doc = readFileSync(new URL("../../docs/deploy.md", import.meta.url), "utf8");
    const line = doc.split("\n").find((l) => l.startsWith("- generates "));
    expect(line).toBeDefined();
    const named = [...line!.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]);
    expect(named.sort()).toEqual([...GENERATED_SECRETS].sort());
  });
});
