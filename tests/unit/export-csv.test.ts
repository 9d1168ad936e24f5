import { describe, expect, it } from "vitest";
import { csvCell, toCsv, toJson } from "~/lib/exports/format.server";

describe("CSV export", () => {
  it.each([
    ["=1+1", "'=1+1"],
    ["+41 79 000 00 00", "'+41 79 000 00 00"],
    ["-5", "'-5"],
    ["@SUM(A1)", "'@SUM(A1)"],
    // Tab is a separator in some locales, so a cell holding one is quoted.
    ["\tTAB", '"\'\tTAB"'],
    ["\rCR", '"\'\rCR"'],
    ['=HYPERLINK("x")', '"\'=HYPERLINK(""x"")"'],
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

  it.each([
    ["a;=1+1", '"a;\'=1+1"'],
    ["a,=1+1", '"a,\'=1+1"'],
    ["a\t=1+1", '"a\t\'=1+1"'],
    ["a;@SUM(A1)", '"a;\'@SUM(A1)"'],
    ["x; -2+3", '"x;\' -2+3"'],
    ["x\n=cmd", '"x\n\'=cmd"'],
    ["\t=1", "\"'\t'=1\""],
    ["；=ok", "；=ok"],
    ["＝1+1", "'＝1+1"],
    ["a;b", '"a;b"'],
  ])("neutralises a formula after any locale's separator in %j", (input, expected) => {
    expect(csvCell(input)).toBe(expected);
  });

  // Spreadsheets skip leading whitespace and invisible characters before a formula, not only the ASCII space.
  it.each([
    ["\u00A0=1+1", "no-break space"],
    ["\u200B=1+1", "zero-width space"],
    ["\u200C+1", "zero-width non-joiner"],
    ["\u200D-1", "zero-width joiner"],
    ["\u2060@SUM(A1)", "word joiner"],
    ["\uFEFF=1", "byte order mark"],
    ["\u3000=1", "ideographic space"],
    ["\u2003=1", "em space"],
    ["\u202F=1", "narrow no-break space"],
    ["\u00AD=1", "soft hyphen"],
    ["\u180E=1", "Mongolian vowel separator"],
    ["\u034F=1", "combining grapheme joiner"],
    [" \u00A0\u200B =1", "a mix"],
    ["a;\u00A0=1", "after a separator"],
    ["x\n\u200B=cmd", "after a line break"],
  ])("neutralises a formula behind invisible or non-breaking space: %j (%s)", (input) => {
    const cell = csvCell(input);
    expect(cell).toContain("'");
    // Every formula start, whatever precedes it, sits behind an apostrophe.
    for (const part of cell.replace(/"/g, "").split(/[,;\t\r\n]/)) {
      expect(part, JSON.stringify(cell)).not.toMatch(/^[\s\p{Cf}\p{Default_Ignorable_Code_Point}]*[=+\-@]/u);
    }
  });

  it("reads, split at any of , ; or tab, as no cell that starts a formula", () => {
    const hostile = ['ok;=HYPERLINK("http://evil")', "a\t+1", "b, @x", "c;\t-1", "=1", " =2", "d\r=3"];
    const line = toCsv(
      ["v"],
      hostile.map((v) => ({ v })),
    );
    for (const separator of [",", ";", "\t"]) {
      // A reader that ignores quotes entirely, the worst case.
      const cells = line
        .replace(/^\uFEFF/, "")
        .replace(/"/g, "")
        .split(/\r\n|\n|\r/)
        .flatMap((row) => row.split(separator));
      for (const cell of cells) expect(cell, `split on ${JSON.stringify(separator)}`).not.toMatch(/^ *[=+\-@]/);
    }
  });

  it("writes valid UTF-8: a lone surrogate becomes U+FFFD", () => {
    const csv = toCsv(["v"], [{ v: "bad \uD800 half" }, { v: "ok 😀" }]);
    const bytes = new TextEncoder().encode(csv);
    expect(() => new TextDecoder("utf-8", { fatal: true }).decode(bytes)).not.toThrow();
    expect(csv).toContain("bad \uFFFD half");
    expect(csv).toContain("ok 😀");
    expect(csvCell("\uDC00x")).toBe("\uFFFDx");
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
