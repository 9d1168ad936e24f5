// The comment share of a folder (default app/lib): comment-only lines ÷ non-blank lines of its .ts and
// .tsx files (code with a trailing comment counts as code). `node scripts/comment-share.mjs [folder]`.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
const root = path.resolve(process.argv[2] ?? "app/lib");
const files = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(path.join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [path.join(dir, e.name)] : [],
  );
let comment = 0,
  nonBlank = 0;
for (const file of files(root)) {
  let inBlock = false;
  for (const raw of readFileSync(file, "utf8").split("\n")) {
    const line = raw.trim();
    if (line === "") continue;
    nonBlank++;
    if (inBlock) {
      comment++;
      if (line.includes("*/")) inBlock = false;
      continue;
    }
    if (line.startsWith("//")) {
      comment++;
      continue;
    }
    if (line.startsWith("/*")) {
      comment++;
      if (!line.includes("*/")) inBlock = true;
      continue;
    }
  }
}
console.log(`${comment} comment lines / ${nonBlank} non-blank lines = ${((100 * comment) / nonBlank).toFixed(1)} %`);
