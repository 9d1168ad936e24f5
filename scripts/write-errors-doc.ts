import { readFileSync, writeFileSync } from "node:fs";
import { renderErrorsDoc } from "./errors-doc";

// `npm run docs:errors`: rewrites docs/errors.md from ERRORS (see errors-doc.ts).
const file = new URL("../docs/errors.md", import.meta.url);
const current = readFileSync(file, "utf8");
const next = renderErrorsDoc(current);
writeFileSync(file, next);
console.log(current === next ? "docs/errors.md is up to date" : "docs/errors.md rewritten from ERRORS");
