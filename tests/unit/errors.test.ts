import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ERRORS } from "~/lib/http/errors";

const doc = readFileSync(new URL("../../docs/errors.md", import.meta.url), "utf8");
const rows = new Map(
  [...doc.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \| (.+?) \|/gm)].map((m) => [m[1], { status: Number(m[2]), message: m[3] }]),
);

describe("error catalogue", () => {
  it.each(Object.entries(ERRORS))("%s is documented in docs/errors.md with its status and message", (code, entry) => {
    const row = rows.get(code);
    expect(row, `docs/errors.md has no row for ${code}`).toBeDefined();
    expect(row!.status).toBe(entry.status);
    expect(row!.message.startsWith(entry.message)).toBe(true);
  });

  it("documents no code the app does not have", () => {
    expect([...rows.keys()].filter((code) => !(code in ERRORS))).toEqual([]);
  });
});
