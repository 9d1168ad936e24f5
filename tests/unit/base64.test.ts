import { describe, expect, it } from "vitest";
import { bytesOfBinary, decodeBase64Url, encodeBase64Url } from "~/lib/crypto/base64";

describe("base64url", () => {
  it("round-trips every byte value, at every length modulo 3", () => {
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    for (const length of [0, 1, 2, 3, 255, 256]) {
      const bytes = all.slice(0, length);
      const text = encodeBase64Url(bytes);
      expect(text).toMatch(/^[A-Za-z0-9_-]*$/);
      expect(decodeBase64Url(text)).toEqual(bytes);
    }
  });

  it("refuses text that is not base64url", () => {
    for (const junk of ["a+b/", "abc=", "a b", "A"]) expect(decodeBase64Url(junk)).toBeNull();
  });

  it("turns a binary string into its bytes", () => {
    expect(bytesOfBinary("\u0000\u007f\u0080\u00ff")).toEqual(new Uint8Array([0, 127, 128, 255]));
  });
});
