import { describe, expect, it } from "vitest";
import { rememberLast } from "~/lib/platform/remember-last";

describe("rememberLast", () => {
  it("answers a repeated value from memory and asks again when the value changes", () => {
    const asked: string[] = [];
    const length = rememberLast((value) => (asked.push(value), value.length));
    expect([length("abc"), length("abc"), length("de"), length("de"), length("abc")]).toEqual([3, 3, 2, 2, 3]);
    expect(asked).toEqual(["abc", "de", "abc"]);
  });

  it("keeps a null answer too", () => {
    let calls = 0;
    const none = rememberLast(() => (calls++, null));
    expect([none("x"), none("x")]).toEqual([null, null]);
    expect(calls).toBe(1);
  });
});
