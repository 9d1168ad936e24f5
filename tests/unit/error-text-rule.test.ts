import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// One rule reads what a failure says (app/lib/storage/d1-failure.server.ts, ADR 087): no other code in
// app/ decides anything from an error's text, so a D1 or platform message changing is one file's edit.
// Recording the text (a log line, an attempt's detail) is not deciding; testing it is.

const APP = path.resolve(__dirname, "../../app");
const RULE = path.join(APP, "lib/storage/d1-failure.server.ts");
const TEXT = String.raw`(?:\b\w*(?:error|err|cause|failure|e)\.message\b|String\(\s*\w*(?:error|err|cause|e)\w*\s*\))`;
const DECIDES = [
  new RegExp(`${TEXT}\\)?\\s*\\.(?:includes|match|matchAll|startsWith|endsWith|search|indexOf)\\(`, "i"),
  new RegExp(`\\.(?:test|exec)\\(\\s*${TEXT}`, "i"),
  new RegExp(`${TEXT}\\s*(?:===|!==|==|!=)`, "i"),
];

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? sources(full) : /\.tsx?$/.test(name) ? [full] : [];
  });
}

/** Each line of `text` that decides from an error's text, as "line: code". */
export function textDecisions(text: string): string[] {
  return text.split("\n").flatMap((line, i) => (DECIDES.some((pattern) => pattern.test(line)) ? [`${i + 1}: ${line.trim()}`] : []));
}

describe("the one rule for what a failure says", () => {
  it("is the only code in app/ that decides from an error's text", () => {
    const found = sources(APP)
      .filter((file) => file !== RULE)
      .flatMap((file) => textDecisions(readFileSync(file, "utf8")).map((hit) => `${path.relative(APP, file)}:${hit}`));
    expect(found).toEqual([]);
  });

  it("sees the reads it forbids (the ones this rule replaced among them)", () => {
    expect(textDecisions('  return String(error).includes("gatepost_form_limit_reached");')).toHaveLength(1);
    expect(textDecisions("  return error instanceof Error && BUDGET_REFUSAL.test(error.message);")).toHaveLength(1);
    expect(textDecisions('if (err.message === "Network connection lost.") retry();')).toHaveLength(1);
    expect(textDecisions("if (/UNIQUE/.exec(e.message)) return conflict;")).toHaveLength(1);
    expect(textDecisions('console.error("replay failed:", error); detail: errorText(error)')).toEqual([]);
    expect(textDecisions(readFileSync(RULE, "utf8")).length).toBeGreaterThan(0);
  });
});
