import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
// @ts-expect-error - plain ESM helper used by npm start
import { settingNames } from "../../scripts/setting-names.mjs";

// `npm start` lets any setting come from the environment. It learns their names from wrangler.toml and
// .env.example; this holds that list to the typed Env, so no setting the app reads is silently ignored.
describe("settings npm start passes through", () => {
  it("include every string variable of the generated Env type", () => {
    const types = readFileSync(new URL("../../worker-configuration.d.ts", import.meta.url), "utf8");
    const env = types.match(/interface Env \{([^}]*)\}/)?.[1] ?? "";
    const declared = [...env.matchAll(/^\s*([A-Z][A-Z0-9_]*): string;/gm)].map((m) => m[1]);
    expect(declared.length).toBeGreaterThan(10);
    const names: Set<string> = settingNames();
    expect(declared.filter((name) => !names.has(name))).toEqual([]);
  });

  it("does not pick up bindings or comments", () => {
    const names: Set<string> = settingNames();
    expect(names.has("DB")).toBe(false);
    expect([...names].every((name) => /^[A-Z][A-Z0-9_]*$/.test(name))).toBe(true);
  });
});
