import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, inject, it } from "vitest";

// Nothing secret may reach build/client, which the Worker's asset server serves to anyone. Checks the built files (this
// layer runs after `npm run build`), not the sources: that is what is actually published.

const ROOT = path.resolve(__dirname, "../..");
const CLIENT = path.join(ROOT, "build/client");

const SECRET_PATTERNS: Array<[string, RegExp]> = [
  ["a Turnstile test secret", /[123]x0{31}AA/],
  ["a webhook signing secret", /whsec_[A-Za-z0-9+/=_-]{8,}/],
  ["a password hash", /\$(argon2(id|i|d)|2[aby]|scrypt|pbkdf2[-_a-z0-9]*)\$/i],
  ["a private key", /-----BEGIN [A-Z ]*PRIVATE KEY-----/],
  ["the siteverify URL (server-only code leaked)", /turnstile\/v0\/siteverify/],
];

function listFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? listFiles(full) : [full];
  });
}

/** Secret names from .env.example, and their values wherever this machine configures them. */
function configuredSecrets(): Array<[string, string]> {
  const names = readFileSync(path.join(ROOT, ".env.example"), "utf8")
    .split("\n")
    .map((line) => /^([A-Z][A-Z0-9_]*)=/.exec(line.trim())?.[1])
    .filter((name): name is string => Boolean(name));
  const values = new Map<string, string>();
  for (const file of [".dev.vars", ".env"]) {
    if (!existsSync(path.join(ROOT, file))) continue;
    for (const line of readFileSync(path.join(ROOT, file), "utf8").split("\n")) {
      const match = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line.trim());
      if (match) values.set(match[1], match[2].replace(/^["']|["']$/g, ""));
    }
  }
  // Values this repository itself configures for local runs and tests (`NAME: "value"` or `NAME = "value"`).
  for (const file of ["scripts/start.mjs", "tests/e2e/bindings.ts", "tests/e2e/global-setup.ts", "tests/workers/helpers.ts"]) {
    if (!existsSync(path.join(ROOT, file))) continue;
    const text = readFileSync(path.join(ROOT, file), "utf8");
    for (const name of names) {
      for (const match of text.matchAll(new RegExp(`\\b${name}\\s*[:=]\\s*["'\`]([^"'\`$]{8,})["'\`]`, "g")))
        values.set(`${name} (${file})`, match[1]);
    }
  }
  for (const name of names) if (process.env[name]) values.set(name, process.env[name]!);
  return [...values.entries()].filter(([, value]) => value.length >= 8);
}

describe("the published client bundle", () => {
  const files = existsSync(CLIENT) ? listFiles(CLIENT) : [];

  it("exists", () => {
    expect(files.some((file) => file.endsWith(".js"))).toBe(true);
  });

  it("holds no secret, no password hash and no server-only code", () => {
    const found: string[] = [];
    for (const file of files) {
      const text = readFileSync(file, "latin1");
      for (const [what, pattern] of SECRET_PATTERNS) if (pattern.test(text)) found.push(`${what} in ${file}`);
      for (const [name, value] of configuredSecrets()) if (text.includes(value)) found.push(`${name}'s value in ${file}`);
    }
    expect(found).toEqual([]);
  });

  it("does not even name the secrets (server-only env code would)", () => {
    const names = readFileSync(path.join(ROOT, ".env.example"), "utf8").match(/^[A-Z][A-Z0-9_]*(?==)/gm) ?? [];
    expect(names.length).toBeGreaterThan(0);
    const found = files.flatMap((file) => {
      const text = readFileSync(file, "latin1");
      return names.filter((name) => text.includes(name)).map((name) => `${name} in ${file}`);
    });
    expect(found).toEqual([]);
  });

  it("knows the secret values this repository configures for local runs", () => {
    const names = configuredSecrets().map(([name]) => name);
    expect(names.some((n) => n.startsWith("FORM_SIGNING_SECRET"))).toBe(true);
    expect(names.some((n) => n.startsWith("SESSION_SECRET"))).toBe(true);
  });

  it("has every static file answered by the asset server before the Worker runs, with public/_headers", async () => {
    const served = files.map((file) => `/${path.relative(CLIENT, file).split(path.sep).join("/")}`).filter((url) => url !== "/_headers");
    expect(served.length).toBeGreaterThan(3);
    const wrong: string[] = [];
    for (const url of served) {
      const res = await fetch(`${inject("baseUrl")}${url}`);
      await res.arrayBuffer();
      // The Worker never sends these caching rules, and the asset server sends them only from _headers.
      const expected = url.startsWith("/assets/")
        ? "public, max-age=31536000, immutable"
        : url === "/favicon.svg"
          ? "public, max-age=86400"
          : null;
      if (res.status !== 200) wrong.push(`${url}: ${res.status}`);
      else if (expected && res.headers.get("cache-control") !== expected)
        wrong.push(`${url}: cache-control ${res.headers.get("cache-control")}`);
      else if (res.headers.has("content-security-policy")) wrong.push(`${url}: answered by the Worker`);
    }
    expect(wrong).toEqual([]);
    // _headers configures the asset server; it is never served as a file.
    expect((await fetch(`${inject("baseUrl")}/_headers`)).status).toBe(404);
  });

  it("would notice a leak: the patterns match the real test secret and a hash", () => {
    const probe = "const s='1x0000000000000000000000000000000AA'; const h='$argon2id$v=19$m=65536'; whsec_abcdefgh12";
    expect(SECRET_PATTERNS.filter(([, p]) => p.test(probe)).length).toBe(3);
  });
});
