import { describe, expect, it } from "vitest";
import { csvCell, toCsv, toJson } from "~/lib/admin/export.server";

describe("CSV export", () => {
  it.each([
    ["=1+1", "'=1+1"],
    ["+41 79 000 00 00", "'+41 79 000 00 00"],
    ["-5", "'-5"],
    ["@SUM(A1)", "'@SUM(A1)"],
    ["\tTAB", "'\tTAB"],
    ["\rCR", "\"'\rCR\""],
    ["=HYPERLINK(\"x\")", "\"'=HYPERLINK(\"\"x\"\")\""],
  ])("neutralises a formula cell %j", (input, expected) => {
    expect(csvCell(input)).toBe(expected);
  });

  it("quotes commas, quotes, newlines and edge spaces, and leaves plain text alone", () => {
    expect(csvCell("a,b")).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell("two\nlines")).toBe('"two\nlines"');
    expect(csvCell(" padded ")).toBe('" padded "');
    expect(csvCell("Zoë 日本")).toBe("Zoë 日本");
    expect(csvCell(null)).toBe("");
    expect(csvCell(true)).toBe("true");
    expect(csvCell(-3)).toBe("-3");
    expect(csvCell("-3")).toBe("'-3");
  });

  it("starts with a UTF-8 BOM, uses CRLF and keeps the given column order", () => {
    const csv = toCsv(["b", "a"], [{ a: "1", b: "2" }, { a: "3" }]);
    expect(csv).toBe("\uFEFFb,a\r\n2,1\r\n,3\r\n");
    expect(new TextEncoder().encode(csv).slice(0, 3)).toEqual(new Uint8Array([0xef, 0xbb, 0xbf]));
  });

  it("writes JSON objects with the same keys in the same order, nulls for gaps", () => {
    expect(JSON.parse(toJson(["b", "a"], [{ a: "=1" }]))).toEqual([{ b: null, a: "=1" }]);
    expect(Object.keys(JSON.parse(toJson(["b", "a"], [{ a: "1", b: "2" }]))[0])).toEqual(["b", "a"]);
  });
});
