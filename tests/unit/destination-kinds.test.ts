import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { FIELD_TYPES } from "~/forms/schema";
import { SENDERS } from "~/lib/destinations/senders.server";
import { FORM_SETTING_SUFFIXES, KIND_SPECS } from "~/lib/destinations/registry";
import type { KindSpec } from "~/lib/destinations/kind";

// A destination kind is one folder, app/lib/destinations/<kind>/ (ADR 114), and registry.ts is the one
// list of kinds. Measured here: a kind's name, as code uses it (a quoted kind, one of its setting names,
// or the product it posts to, that word anywhere, comments included), appears in no file of app/ outside
// its folder, the registry and the form definitions (app/forms/, data); and no file outside
// app/lib/destinations/ imports a kind's folder: the registry and the senders it finds are the way in.

const APP = path.resolve(__dirname, "../../app");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(path.join(dir, entry.name)) : /\.tsx?$/.test(entry.name) ? [path.join(dir, entry.name)] : [],
  );
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The patterns that name `spec` in code. A kind whose name is also a field type ("email") counts only beside `kind`/`destination`. */
export function namePatterns(spec: KindSpec): RegExp[] {
  const quoted = `["'\`]${escape(spec.kind)}["'\`]`;
  const ambiguous = (FIELD_TYPES as readonly string[]).includes(spec.kind);
  const patterns = [
    new RegExp(ambiguous ? `\\b(?:kind|destination)\\b[^\\n"'\`]{0,12}${quoted}` : quoted),
    ...spec.settings.map((setting) => new RegExp(`(?<![A-Z0-9_])${escape(setting.suffix)}(?![A-Z0-9_])`)),
  ];
  // A product's name is a name wherever it is written.
  if (spec.product) patterns.push(new RegExp(`\\b${escape(spec.product)}\\b`));
  return patterns;
}

/** Where `spec`'s name may appear: its folder, the registry, the form definitions. */
function isHome(file: string, spec: KindSpec): boolean {
  const relative = path.relative(APP, file).split(path.sep).join("/");
  if (relative.startsWith("forms/")) return true;
  return relative === "lib/destinations/registry.ts" || relative.startsWith(`lib/destinations/${spec.kind}/`);
}

/** "path kind" for each file outside app/lib/destinations/ that imports a kind's folder. */
export function kindImportsOutside(files: readonly { file: string; text: string }[], kinds: readonly string[]): string[] {
  const found: string[] = [];
  for (const { file, text } of files) {
    const relative = path.relative(APP, file).split(path.sep).join("/");
    if (relative.startsWith("lib/destinations/")) continue;
    for (const kind of kinds) {
      if (new RegExp(`["'](?:~/lib/|(?:\\.\\./)+)destinations/${escape(kind)}/`).test(text)) found.push(`${relative} ${kind}`);
    }
  }
  return found.sort();
}

/** "kind path" for each file outside a kind's home that names it. */
export function namedOutsideHome(files: readonly { file: string; text: string }[], specs: readonly KindSpec[]): string[] {
  const found: string[] = [];
  for (const spec of specs) {
    const patterns = namePatterns(spec);
    for (const { file, text } of files) {
      if (isHome(file, spec)) continue;
      if (patterns.some((pattern) => pattern.test(text))) found.push(`${spec.kind} ${path.relative(APP, file).split(path.sep).join("/")}`);
    }
  }
  return found.sort();
}

describe("destination kinds", () => {
  it("are listed once, by the registry, each a folder with its spec and its sender", () => {
    const kinds = KIND_SPECS.map((spec) => spec.kind);
    expect(new Set(kinds).size).toBe(kinds.length);
    expect(SENDERS.map((sender) => sender.kind)).toEqual(kinds);
    expect(new Set(FORM_SETTING_SUFFIXES).size).toBe(FORM_SETTING_SUFFIXES.length);
    const folders = readdirSync(path.join(APP, "lib/destinations"), { withFileTypes: true }).filter((entry) => entry.isDirectory());
    // Every folder is a listed kind: a folder left out of the registry would be dead code.
    expect(folders.map((entry) => entry.name).sort()).toEqual([...kinds].sort());
    for (const kind of kinds) {
      expect(existsSync(path.join(APP, "lib/destinations", kind, "spec.ts")), kind).toBe(true);
      expect(existsSync(path.join(APP, "lib/destinations", kind, "sender.server.ts")), kind).toBe(true);
    }
  });

  it("are reached from outside app/lib/destinations/ only through the registry", () => {
    const files = sourceFiles(APP).map((file) => ({ file, text: readFileSync(file, "utf8") }));
    expect(
      kindImportsOutside(
        files,
        KIND_SPECS.map((spec) => spec.kind),
      ),
    ).toEqual([]);
    const at = (relative: string, text: string) => ({ file: path.join(APP, relative), text });
    expect(
      kindImportsOutside(
        [
          at("lib/delivery/a.server.ts", 'import { sender } from "~/lib/destinations/slack/sender.server";'),
          at("lib/admin/b.ts", 'import { x } from "../destinations/email/spec";'),
          at("lib/destinations/gates.server.ts", 'import { y } from "~/lib/destinations/registry";'),
          at("lib/destinations/confirmation/sender.server.ts", 'import { z } from "~/lib/destinations/email/transport.server";'),
        ],
        ["slack", "email"],
      ),
    ).toEqual(["lib/admin/b.ts email", "lib/delivery/a.server.ts slack"]);
  });

  it("are named in no file outside their own modules, the registries and the form definitions", () => {
    const files = sourceFiles(APP).map((file) => ({ file, text: readFileSync(file, "utf8") }));
    expect(files.length).toBeGreaterThan(100);
    expect(namedOutsideHome(files, KIND_SPECS)).toEqual([]);
  });

  it("are named nowhere in npm start: each kind's sink.mjs says how it is pointed at the sink", async () => {
    const text = readFileSync(path.resolve(APP, "../scripts/start.mjs"), "utf8");
    const code = KIND_SPECS.map((spec) => ({ ...spec, product: undefined }));
    expect(namedOutsideHome([{ file: path.resolve(APP, "../scripts/start.mjs"), text }], code)).toEqual([]);
    // @ts-expect-error - plain ESM shared with npm start
    const { loadKindSinks } = await import("../../dev/local-sink.mjs");
    const sinks: Array<{ kind: string; local?: { switch: string; settings: (ctx: object) => Record<string, string> } }> =
      await loadKindSinks();
    for (const spec of KIND_SPECS) {
      const local = sinks.find((sink) => sink.kind === spec.kind)?.local;
      expect(local, spec.kind).toBeDefined();
      const suffixes = spec.settings.map((setting) => setting.suffix);
      const values = local!.settings({ origin: "http://127.0.0.1:1", secret: "whsec_x", sheetsKey: "{}", formId: "f" });
      expect(
        [local!.switch, ...Object.keys(values)].every((suffix) => suffixes.includes(suffix as never)),
        spec.kind,
      ).toBe(true);
      expect(values[local!.switch], spec.kind).toBeTruthy();
    }
  });

  it("each have their docs section, where their module says", () => {
    // GitHub's heading anchors: lower case, punctuation dropped, spaces as dashes.
    const slug = (heading: string) =>
      heading
        .toLowerCase()
        .replace(/[^\p{L}\p{N} -]/gu, "")
        .replaceAll(" ", "-");
    for (const spec of KIND_SPECS) {
      const [file, anchor] = spec.docs.split("#");
      const text = readFileSync(path.resolve(APP, "..", file!), "utf8");
      const anchors = [...text.matchAll(/^#{2,3} (.+)$/gm)].map((m) => slug(m[1]!));
      if (anchor) expect(anchors, spec.kind).toContain(anchor);
      expect(text.length, spec.kind).toBeGreaterThan(500);
    }
  });

  it("would catch a kind named elsewhere, by its quoted name, a setting or the proper noun", () => {
    const slack = KIND_SPECS.find((spec) => spec.kind === "slack")!;
    const email = KIND_SPECS.find((spec) => spec.kind === "email")!;
    const at = (relative: string, text: string) => ({ file: path.join(APP, relative), text });
    expect(
      namedOutsideHome(
        [
          at("lib/admin/a.ts", 'if (kind === "slack") {}'),
          at("lib/admin/b.ts", 'const suffix = "SLACK_WEBHOOK_URL";'),
          at("lib/admin/c.ts", "// posts to Slack"),
          at("lib/admin/d.ts", 'if (destination.kind === "email") {}'),
          at("lib/admin/e.ts", 'if (field.type === "email") {}'),
          at("lib/destinations/slack/sender.server.ts", 'kind: "slack"'),
          at("lib/destinations/email/slack-like.ts", 'kind: "slack"'),
          at("forms/contact.ts", '{ kind: "slack" }'),
        ],
        [slack, email],
      ),
    ).toEqual([
      "email lib/admin/d.ts",
      "slack lib/admin/a.ts",
      "slack lib/admin/b.ts",
      "slack lib/admin/c.ts",
      "slack lib/destinations/email/slack-like.ts",
    ]);
  });
});
