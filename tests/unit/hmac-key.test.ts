import { describe, expect, it } from "vitest";
import { hmacKey } from "~/lib/crypto/hmac-key.server";

const sign = async (key: CryptoKey, text: string) =>
  Buffer.from(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(text))).toString("hex");

async function freshKey(raw: Uint8Array<ArrayBuffer>) {
  return crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
}

describe("hmacKey", () => {
  it("signs exactly as a freshly imported key does, for text and for bytes", async () => {
    const text = "a-signing-secret-of-some-length-0123456789";
    expect(await sign(await hmacKey(text), "msg")).toBe(await sign(await freshKey(new TextEncoder().encode(text)), "msg"));
    const bytes = crypto.getRandomValues(new Uint8Array(32));
    expect(await sign(await hmacKey(bytes), "msg")).toBe(await sign(await freshKey(bytes), "msg"));
  });

  it("imports each secret once and keeps different secrets apart", async () => {
    const a = await hmacKey("secret-a");
    expect(await hmacKey("secret-a")).toBe(a);
    expect(await hmacKey("secret-b")).not.toBe(a);
    // The same characters as text and as bytes are different keys only when their bytes differ.
    const asBytes = await hmacKey(new TextEncoder().encode("secret-a") as Uint8Array<ArrayBuffer>);
    expect(await sign(asBytes, "x")).toBe(await sign(a, "x"));
  });

  it("verifies what it signed", async () => {
    const key = await hmacKey("verify-me");
    const mac = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode("payload"));
    expect(await crypto.subtle.verify("HMAC", key, mac, new TextEncoder().encode("payload"))).toBe(true);
    expect(await crypto.subtle.verify("HMAC", key, mac, new TextEncoder().encode("payloaD"))).toBe(false);
  });

  it("stays bounded when secrets keep changing, and still answers correctly for evicted ones", async () => {
    const first = await hmacKey("rotating-0");
    for (let i = 1; i <= 40; i++) await hmacKey(`rotating-${i}`);
    const again = await hmacKey("rotating-0");
    expect(again).not.toBe(first);
    expect(await sign(again, "m")).toBe(await sign(first, "m"));
  });
});
