// Comment-only lines ÷ code lines, comments found by TypeScript's parser (never a "//" in a string, regex or JSX
// text; JSX's braced comments too). `node scripts/comment-share.mjs [folder…]`; tests/unit/words.test.ts uses it.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

export const CODE_FILE = /\.(ts|tsx|js|mjs|cjs|jsx|css)$/;

/** Every code file under a folder, skipping build output and dependencies. */
export function listCodeFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return ["node_modules", "build", "results", ".baseline"].includes(entry.name) ? [] : listCodeFiles(full);
    return CODE_FILE.test(entry.name) ? [full] : [];
  });
}

/** Where a file's comments are, as [start, end) offsets. */
export function findComments(text, fileName) {
  if (fileName.endsWith(".css")) return [...text.matchAll(/\/\*[\s\S]*?\*\//g)].map((m) => [m.index, m.index + m[0].length]);
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, scriptKindOf(fileName));
  const found = new Map();
  const jsxText = new Set();
  const findJsxText = (node) => {
    if (node.kind === ts.SyntaxKind.JsxText) jsxText.add(node.pos);
    ts.forEachChild(node, findJsxText);
  };
  findJsxText(source);
  const visit = (node) => {
    // A comment is trivia before a token: trailing the line before it, or leading; JSX text is words.
    if (!jsxText.has(node.pos)) {
      const ranges = [...(ts.getTrailingCommentRanges(text, node.pos) ?? []), ...(ts.getLeadingCommentRanges(text, node.pos) ?? [])];
      for (const range of ranges) found.set(range.pos, range.end);
    }
    for (const child of node.getChildren(source)) visit(child);
  };
  visit(source);
  return [...found].sort((a, b) => a[0] - b[0]);
}

function scriptKindOf(fileName) {
  if (fileName.endsWith(".tsx")) return ts.ScriptKind.TSX;
  if (fileName.endsWith(".jsx")) return ts.ScriptKind.JSX;
  return /\.[mc]?js$/.test(fileName) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
}

/** A file's comment-only lines (a JSX comment in braces too) and code lines; blank lines are neither. */
export function countLines(text, fileName) {
  let stripped = text;
  for (const [start, end] of findComments(text, fileName).reverse()) {
    stripped = stripped.slice(0, start) + text.slice(start, end).replace(/[^\n]/g, " ") + stripped.slice(end);
  }
  let comment = 0;
  let code = 0;
  const original = text.split("\n");
  stripped.split("\n").forEach((line, i) => {
    if (original[i].trim() === "") return;
    const rest = line.replace(/\s/g, "");
    if (rest === "" || (rest === "{}" && line !== original[i])) comment++;
    else code++;
  });
  return { comment, code };
}

/** The comment and code lines of every code file under the folders, each file's too. */
export function measure(folders) {
  const files = folders.flatMap((folder) => listCodeFiles(folder));
  const perFile = files.map((file) => ({ file, ...countLines(readFileSync(file, "utf8"), file) }));
  const comment = perFile.reduce((sum, f) => sum + f.comment, 0);
  const code = perFile.reduce((sum, f) => sum + f.code, 0);
  return { comment, code, share: code === 0 ? 0 : comment / code, perFile };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const folders = process.argv.slice(2);
  for (const folder of folders.length > 0 ? folders : ["app"]) {
    const { comment, code, share, perFile } = measure([folder]);
    console.log(`${folder}: ${comment} comment lines / ${code} code lines = ${(100 * share).toFixed(1)} %`);
    for (const f of perFile
      .filter((f) => f.comment > 0)
      .sort((a, b) => b.comment - a.comment)
      .slice(0, 15)) {
      console.log(`  ${String(f.comment).padStart(4)} / ${String(f.code).padStart(4)}  ${path.relative(".", f.file)}`);
    }
  }
}
