// `npm run admin:hash-password -- <password>` (or on stdin): a hash for ADMIN_PASSWORD_HASH, in
// password.server.ts' format (tests/unit/password.test.ts checks they agree).
import { fileURLToPath } from "node:url";

export const PBKDF2_ITERATIONS = 100_000;

function toBase64Url(bytes) {
  return Buffer.from(bytes).toString("base64url");
}

/** Hashes `password` with a random 16-byte salt in the server's format. */
export async function hashPassword(password, iterations = PBKDF2_ITERATIONS) {
  const { subtle } = globalThis.crypto;
  const salt = globalThis.crypto.getRandomValues(new Uint8Array(16));
  const material = await subtle.importKey("raw", new TextEncoder().encode(password), "PBKDF2", false, ["deriveBits"]);
  const bits = await subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt, iterations }, material, 256);
  return `pbkdf2-sha256:${iterations}:${toBase64Url(salt)}:${toBase64Url(new Uint8Array(bits))}`;
}

async function readStdin() {
  if (process.stdin.isTTY) {
    process.stderr.write("Password (input is shown; pipe it in to keep it out of the terminal): ");
  }
  let text = "";
  for await (const chunk of process.stdin) text += chunk;
  // Only the line ending a pipe or terminal adds is dropped: spaces inside a password are kept.
  return text.replace(/\r?\n$/, "");
}

async function main() {
  const password = process.argv[2] ?? (await readStdin());
  if (!password) {
    console.error("No password given. Usage: npm run admin:hash-password -- '<password>'  (or pipe it on stdin)");
    process.exit(1);
  }
  if (password.length < 12) console.error("Warning: a password under 12 characters is easy to guess.");
  console.log(await hashPassword(password));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
