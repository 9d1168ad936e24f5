import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// The folders of app/lib are the architecture (README, "What is where"): each may import only the
// folders below it, so the dependency direction stays one way: submit → delivery → uploads → storage ← admin,
// with turnstile below submit and admin, maintenance (the cron's jobs) beside them, and http,
// settings and crypto at the bottom; text (words for counts) sits under everything and imports
// nothing. A new import that points up (storage importing delivery, settings importing admin) fails
// here with the file and the line. Inside a folder, and across app/, no module may reach itself again
// through its imports, type-only imports included (import-x/no-cycle skips those, so it is not used).

const APP = path.resolve(__dirname, "../../app");
const LIB = path.join(APP, "lib");

/** What each folder may import besides itself (and ~/forms, the form definitions). */
const ALLOWED: Record<string, readonly string[]> = {
  maintenance: ["i18n", "delivery", "uploads", "exports", "forms", "storage", "http", "settings", "crypto", "platform", "text"],
  submit: ["i18n", "turnstile", "delivery", "uploads", "forms", "storage", "http", "settings", "crypto", "platform", "text"],
  // The sign-in form asks for a Turnstile pass past the site-wide budget (docs/decisions/027).
  // The embed snippet names the fields Gatepost reads beside a form's own (submit/field-names.ts).
  admin: [
    "submit",
    "i18n",
    "turnstile",
    "delivery",
    "uploads",
    "exports",
    "forms",
    "storage",
    "http",
    "settings",
    "crypto",
    "platform",
    "text",
  ],
  // The verify endpoint counts its calls in D1 (storage/rate-limits.server.ts).
  turnstile: ["storage", "http", "settings", "crypto", "platform", "text"],
  delivery: ["i18n", "uploads", "forms", "storage", "http", "settings", "crypto", "platform", "text"],
  // Uploaded files: their types, names, download links and the orphan sweep (R2 itself: storage).
  uploads: ["storage", "http", "settings", "crypto", "platform", "text"],
  // Export files built as jobs in R2, a step per budget (docs/decisions/085): the console starts them, the cron carries them on.
  exports: ["storage", "http", "settings", "platform", "text"],
  // The form catalog (files and the console's forms, ADR 045), patterns, the JSON Schema export.
  forms: ["storage", "http", "settings", "crypto", "platform", "text"],
  // Gatepost's own words in every language, and which one a visitor gets (docs/decisions/075).
  i18n: ["uploads", "http", "text"],
  storage: ["http", "settings", "crypto", "platform", "text"],
  settings: ["http", "crypto", "platform", "text"],
  http: ["crypto", "text"],
  crypto: ["text"],
  // The plan's per-invocation limits and the budget each looping job spends (platform/budget.server.ts).
  platform: [],
  text: [],
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(path.join(dir, entry.name)) : /\.tsx?$/.test(entry.name) ? [path.join(dir, entry.name)] : [],
  );
}

/** The app/lib folder an import specifier of `file` lands in, or null when it leaves app/lib. */
function targetFolder(file: string, specifier: string): string | null {
  const resolved = specifier.startsWith("~/")
    ? path.resolve(LIB, "..", specifier.slice(2))
    : specifier.startsWith(".")
      ? path.resolve(path.dirname(file), specifier)
      : null;
  if (!resolved || !resolved.startsWith(`${LIB}${path.sep}`)) return null;
  return path.relative(LIB, resolved).split(path.sep)[0];
}

/** The app/ file an import specifier of `file` names, or null when it leaves app/ (a package). */
function resolveInApp(file: string, specifier: string): string | null {
  const base = specifier.startsWith("~/")
    ? path.join(APP, specifier.slice(2))
    : specifier.startsWith(".")
      ? path.resolve(path.dirname(file), specifier)
      : null;
  if (!base || !base.startsWith(`${APP}${path.sep}`)) return null;
  return [base, `${base}.ts`, `${base}.tsx`].find((candidate) => /\.tsx?$/.test(candidate) && existsSync(candidate)) ?? null;
}

/** Each import circle in `graph` (file → the files it imports), as "a → b → a"; one per back edge. */
export function findCycles(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const cycles: string[] = [];
  const state = new Map<string, "open" | "done">();
  const trail: string[] = [];
  const visit = (node: string) => {
    state.set(node, "open");
    trail.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === "open") cycles.push([...trail.slice(trail.indexOf(next)), next].join(" → "));
      else if (!state.has(next)) visit(next);
    }
    trail.pop();
    state.set(node, "done");
  };
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node);
  return cycles;
}

/** Every import or re-export specifier of `file`, with its line number. */
function importsOf(file: string): { specifier: string; line: number }[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .flatMap((text, index) =>
      [...text.matchAll(/\b(?:from|import)\s*\(?\s*"([^"]+)"/g)].map((m) => ({ specifier: m[1], line: index + 1 })),
    );
}

describe("app/lib dependency direction", () => {
  it("has exactly the folders the map names", () => {
    const folders = readdirSync(LIB, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
    expect(folders).toEqual(Object.keys(ALLOWED).sort());
    // Nothing sits in app/lib outside a folder.
    expect(readdirSync(LIB).filter((name) => /\.tsx?$/.test(name))).toEqual([]);
  });

  it("imports only downward, from every file of every folder", () => {
    const wrong: string[] = [];
    let checked = 0;
    for (const [folder, allowed] of Object.entries(ALLOWED)) {
      for (const file of sourceFiles(path.join(LIB, folder))) {
        for (const { specifier, line } of importsOf(file)) {
          const target = targetFolder(file, specifier);
          if (target === null || target === folder) continue;
          checked += 1;
          if (!allowed.includes(target)) wrong.push(`${path.relative(LIB, file)}:${line} imports ${specifier} (${folder} → ${target})`);
        }
      }
    }
    expect(wrong).toEqual([]);
    // The walk saw the cross-folder imports that exist (submit alone has several), so an empty list
    // above means they all point down, not that none were read.
    expect(checked).toBeGreaterThan(20);
  });

  it("has no import circles anywhere in app/, type-only imports included", () => {
    const files = sourceFiles(APP);
    const graph = new Map(
      files.map((file) => [
        path.relative(APP, file),
        importsOf(file).flatMap(({ specifier }) => {
          const target = resolveInApp(file, specifier);
          return target ? [path.relative(APP, target)] : [];
        }),
      ]),
    );
    expect(findCycles(graph)).toEqual([]);
    // The graph holds the imports that exist, so an empty list means no circle, not no edges.
    expect([...graph.values()].flat().length).toBeGreaterThan(200);
  });

  it("would catch a circle, however long", () => {
    const graph = new Map([
      ["a.ts", ["b.ts"]],
      ["b.ts", ["c.ts"]],
      ["c.ts", ["a.ts"]],
      ["d.ts", ["d.ts"]],
    ]);
    expect(findCycles(graph)).toEqual(["a.ts → b.ts → c.ts → a.ts", "d.ts → d.ts"]);
  });

  it("would catch an import that points up", () => {
    const settingsFile = path.join(LIB, "settings/settings.server.ts");
    expect(targetFolder(settingsFile, "../admin/auth.server")).toBe("admin");
    expect(targetFolder(settingsFile, "~/lib/admin/auth.server")).toBe("admin");
    expect(ALLOWED.settings.includes("admin")).toBe(false);
    expect(importsOf(settingsFile).length).toBeGreaterThan(0);
  });
});
