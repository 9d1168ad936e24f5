import { describe, expect, it } from "vitest";
import { oncePerRequest } from "~/lib/platform/once-per-request";

describe("oncePerRequest", () => {
  it("makes each key's answer once and hands every asker the same promise", async () => {
    const once = oncePerRequest();
    let made = 0;
    const make = async () => ++made;
    const [a, b] = await Promise.all([once("user", make), once("user", make)]);
    expect([a, b, made]).toEqual([1, 1, 1]);
    expect(await once("other", make)).toBe(2);
  });

  it("keeps nothing between requests: a new memo makes it again", async () => {
    let made = 0;
    const make = async () => ++made;
    await oncePerRequest()("user", make);
    expect(await oncePerRequest()("user", make)).toBe(2);
  });

  it("hands a failure to every asker of that request", async () => {
    const once = oncePerRequest();
    let made = 0;
    const failing = async () => {
      made++;
      throw new Error("D1 down");
    };
    await expect(once("user", failing)).rejects.toThrow("D1 down");
    await expect(once("user", failing)).rejects.toThrow("D1 down");
    expect(made).toBe(1);
  });
});
