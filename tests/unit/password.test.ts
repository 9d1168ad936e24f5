import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { hashPassword, parsePasswordHash, verifyPassword } from "~/lib/crypto/password.server";

const SCRIPT = fileURLToPath(new URL("../../scripts/hash-password.mjs", import.meta.url));

function runScript(args: string[], input?: string) {
  const run = spawnSync(process.execPath, [SCRIPT, ...args], { input, encoding: "utf8" });
  const lines = run.stdout.trim().split("\n");
  return { status: run.status, last: lines[lines.length - 1], stderr: run.stderr };
}

describe("password hashes", () => {
  it("verifies the right password and refuses a wrong, empty or overlong one", async () => {
    const hash = await hashPassword("correct horse battery staple");
    expect(hash).toMatch(/^pbkdf2-sha256:100000:[\w-]{22}:[\w-]{43}$/);
    expect(await verifyPassword("correct horse battery staple", hash)).toBe(true);
    expect(await verifyPassword("correct horse battery stapl", hash)).toBe(false);
    expect(await verifyPassword("", hash)).toBe(false);
    expect(await verifyPassword("x".repeat(2000), hash)).toBe(false);
  });

  it("salts every hash differently", async () => {
    expect(await hashPassword("same")).not.toBe(await hashPassword("same"));
  });

  it("never matches a missing or malformed hash (the console must not open by accident)", async () => {
    for (const stored of [
      undefined,
      "",
      "plain-text-password",
      "pbkdf2-sha256:100000:short:short",
      "pbkdf2-sha256:200000:AAAAAAAAAAAAAAAAAAAAAA:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
    ]) {
      expect(parsePasswordHash(stored)).toBeNull();
      expect(await verifyPassword("anything", stored)).toBe(false);
    }
  });

  it("npm run admin:hash-password prints, as its last line, a hash the server verifies (argument)", async () => {
    const run = runScript(["s3cret with spaces!"]);
    expect(run.status).toBe(0);
    expect(await verifyPassword("s3cret with spaces!", run.last)).toBe(true);
    expect(await verifyPassword("s3cret with spaces", run.last)).toBe(false);
  });

  it("reads the password from stdin, dropping only the final newline", async () => {
    const run = runScript([], "piped password 123 \n");
    expect(run.status).toBe(0);
    expect(await verifyPassword("piped password 123 ", run.last)).toBe(true);
  });

  it("fails with a usage message when given nothing", () => {
    const run = runScript([], "");
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("Usage");
  });
});
