import { describe, expect, it } from "vitest";
import { csvHead, csvLines, exportColumns, JSON_HEAD, JSON_TAIL, jsonLines, toCsv, toJson } from "~/lib/exports/format.server";
import { initialExportState, nextPart } from "~/lib/exports/job.server";

// The pure parts of the export job (docs/decisions/085): text written a page at a time is the text of
// one pass, and parts cut from chunks are all one size (R2's rule), whatever the chunks' sizes.

describe("the export's text in pages", () => {
  const columns = exportColumns(["name", "email"], ["zeta", "alpha", "name"]);
  const rows = Array.from({ length: 10 }, (_, i) => ({ id: `s${i}`, "field:name": `=N${i}`, "field:alpha": i % 3 ? null : "x" }));

  it("orders columns: metadata, the form's fields, then names only stored rows hold, sorted, once each", () => {
    expect(columns.slice(9)).toEqual(["field:name", "field:email", "field:alpha", "field:zeta"]);
    expect(columns.slice(0, 5)).toEqual(["id", "form_id", "received_at", "state", "test"]);
  });

  it.each([1, 3, 4, 10])("writes the same CSV and JSON as one pass in pages of %i", (size) => {
    let csv = csvHead(columns);
    let json = JSON_HEAD;
    for (let i = 0; i < rows.length; i += size) {
      csv += csvLines(columns, rows.slice(i, i + size));
      json += jsonLines(columns, rows.slice(i, i + size), i === 0);
    }
    json += JSON_TAIL;
    expect(csv).toBe(toCsv(columns, rows));
    expect(json).toBe(toJson(columns, rows));
    expect(JSON.parse(json)).toHaveLength(10);
  });

  it("writes an empty export as a header, or an empty array", () => {
    expect(toCsv(columns, [])).toBe(csvHead(columns));
    expect(JSON.parse(toJson(columns, []))).toEqual([]);
  });
});

describe("nextPart", () => {
  /** Every part a state with these chunk sizes makes, as [chunk, offset, length] lists. */
  function partsOf(chunks: number[], partSize: number) {
    const state = { ...initialExportState([]), chunks };
    const parts: Array<Array<[number, number, number]>> = [];
    for (;;) {
      const { ranges, end } = nextPart(state, partSize);
      if (ranges.length === 0) return parts;
      parts.push(ranges.map((r) => [r.chunk, r.offset, r.length]));
      state.composed = end;
    }
  }

  it("cuts parts of one size across chunk boundaries, the last one shorter", () => {
    expect(partsOf([4, 7, 2, 9], 5)).toEqual([
      [
        [0, 0, 4],
        [1, 0, 1],
      ],
      [[1, 1, 5]],
      [
        [1, 6, 1],
        [2, 0, 2],
        [3, 0, 2],
      ],
      [[3, 2, 5]],
      [[3, 7, 2]],
    ]);
  });

  it.each([
    [[1], 5],
    [[5, 5], 5],
    [[3, 3, 3, 3, 3, 3, 3], 4],
    [[100, 1, 1, 50], 32],
  ])("covers every byte of %j once in parts of %i", (chunks, partSize) => {
    const parts = partsOf(chunks, partSize);
    const lengths = parts.map((ranges) => ranges.reduce((n, [, , length]) => n + length, 0));
    const total = chunks.reduce((a, b) => a + b, 0);
    expect(lengths.reduce((a, b) => a + b, 0)).toBe(total);
    expect(lengths.slice(0, -1).every((n) => n === partSize)).toBe(true);
    expect(lengths[lengths.length - 1]).toBeLessThanOrEqual(partSize);
  });
});
