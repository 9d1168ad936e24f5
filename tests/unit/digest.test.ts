import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { encodeHex, sha256, sha256Hex } from "~/lib/crypto/digest";

describe("digest", () => {
  it("encodes every byte value as two lowercase hex digits, in order", () => {
    const bytes = Uint8Array.from({ length: 256 }, (_, i) => 255 - i);
    expect(encodeHex(bytes)).toBe(Buffer.from(bytes).toString("hex"));
    expect(encodeHex(bytes.buffer)).toBe(Buffer.from(bytes).toString("hex"));
    expect(encodeHex(new Uint8Array())).toBe("");
  });

  it("hashes text as UTF-8 and bytes as they are, like Node's SHA-256", async () => {
    const text = "Zoë <zoe@example.org> ✓";
    expect(await sha256Hex(text)).toBe(createHash("sha256").update(text, "utf8").digest("hex"));
    const bytes = new TextEncoder().encode(text);
    expect(await sha256Hex(bytes)).toBe(createHash("sha256").update(bytes).digest("hex"));
    expect(await sha256Hex(bytes.buffer)).toBe(createHash("sha256").update(bytes).digest("hex"));
    expect(Buffer.from(await sha256(text))).toEqual(createHash("sha256").update(text, "utf8").digest());
  });
});
