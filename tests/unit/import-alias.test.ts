import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// One import alias in app/ (conventions, "Names"): a module is always named `~/…`, never by a path
// relative to its reader, so one module has one name wherever it is read. Vite's config never imports
// app code (vite.config.ts loads load-context.ts through the dev server), so no file needs an exception.

const APP = path.resolve(__dirname, "../../app");

function codeFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? codeFiles(path.join(dir, entry.name)) : /\.tsx?$/.test(entry.name) ? [path.join(dir, entry.name)] : [],
  );
}

/** "file:line" for each import or re-export of `text` that names a module by a relative path. */
export function relativeImports(file: string, text: string): string[] {
  return text.split("\n").flatMap((line, index) => (/\b(?:from|import)\s*\(?\s*"\.\.?\//.test(line) ? [`${file}:${index + 1}`] : []));
}

describe("import alias", () => {
  it("names every app module with ~/ in app/", () => {
    const files = codeFiles(APP);
    expect(files.flatMap((file) => relativeImports(path.relative(APP, file), readFileSync(file, "utf8")))).toEqual([]);
    expect(files.length).toBeGreaterThan(150);
  });

  it("would name a relative import and leave a glob pattern alone", () => {
    const text = [
      'import { a } from "../a";',
      'export { b } from "./b";',
      'import.meta.glob("./*/sender.server.ts");',
      'import { c } from "~/c";',
    ].join("\n");
    expect(relativeImports("x.ts", text)).toEqual(["x.ts:1", "x.ts:2"]);
  });
});
