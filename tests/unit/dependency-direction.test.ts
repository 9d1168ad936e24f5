import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// The folders of app/lib are the architecture (docs/architecture.md, "What is where"): each may import only the
// folders below it, so the dependency direction stays one way. The form definitions and their model
// (app/forms, "~/forms" here) sit under every lib folder but the kinds' specs, whose registry derives
// a definition's destinations (ADR 114). A folder with a ".server" twin in the map is two layers:
// its client-safe files below (destinations: each kind's spec, which settings and the console read)
// and its .server.ts files above (each kind's sender, over sending/). Nothing is exempt: app/forms is
// checked like a folder of app/lib. A new import that points up fails here with the file and the
// line. Inside a folder, and across app/, no module may reach itself again through its imports,
// type-only imports included (import-x/no-cycle skips those, so it is not used).

const APP = path.resolve(__dirname, "../../app");
const LIB = path.join(APP, "lib");
const FORMS = path.join(APP, "forms");
/** The map's name for app/forms, the form definitions and their model. */
const DEFINITIONS = "~/forms";

/** What every folder from kind-neutral sending up may import: the layers beneath it. */
const UNDER_SENDING = [
  "i18n",
  "uploads",
  "forms",
  "conditions",
  "storage",
  "http",
  "settings",
  "destinations",
  "crypto",
  "platform",
  "text",
  DEFINITIONS,
];

/** What each folder may import besides itself. */
const ALLOWED: Record<string, readonly string[]> = {
  maintenance: ["delivery", "destinations.server", "sending", "exports", ...UNDER_SENDING],
  submit: ["turnstile", "delivery", "destinations.server", "sending", "spam", ...UNDER_SENDING],
  // A form's destinations in the console: their settings, tests, pauses and bulk redelivery.
  "form-destinations": ["auth", "console", "submissions", "delivery", "hooks", "destinations.server", "sending", ...UNDER_SENDING],
  // Stored submissions as the console and the admin API list, show, delete, erase and redeliver them.
  submissions: ["auth", "console", "delivery", "destinations.server", "sending", "spam", ...UNDER_SENDING],
  // The console's form editor: the draft posted, its page, and a console form's create, publish, archive.
  "form-editor": ["auth", "console", ...UNDER_SENDING],
  // Embedding a form on another site: its allowed sites, the snippets, the framed page and /embed.js.
  embed: ["auth", ...UNDER_SENDING],
  // People of a team (ADR 129): invitations, their console page and API, following a link, passkeys.
  people: ["auth", "console", "sending", ...UNDER_SENDING],
  // The MCP server for assistants (ADR 124): tools over the admin API's own reads and actions.
  mcp: ["auth", "console", "submissions", "form-editor", "delivery", "hooks", "destinations.server", "sending", ...UNDER_SENDING],
  // The verify endpoint counts its calls in D1 (storage/rate-limits.server.ts).
  turnstile: ["storage", "http", "settings", "destinations", "crypto", "platform", "text", DEFINITIONS],
  // The outbox, the drain and the queue: when and how often, for any kind (ADR 003, 070).
  delivery: ["hooks", "destinations.server", "sending", ...UNDER_SENDING],
  // Subscriptions by API (REST hooks, ADR 123): their table, the API's changes, one attempt with the webhook's POST.
  hooks: ["destinations.server", "sending", ...UNDER_SENDING],
  // Each kind's sender (<kind>/sender.server.ts), the one contract they meet and the list found from the registry.
  "destinations.server": ["sending", ...UNDER_SENDING],
  // Kind-neutral sending beneath the kinds: attempts, signatures, MIME, the mailer, HTTP e-mail providers, file links.
  sending: UNDER_SENDING,
  // Uploaded files: their types, names, download links and the orphan sweep (R2 itself: storage).
  uploads: ["storage", "http", "settings", "destinations", "crypto", "platform", "text", DEFINITIONS],
  // Export files built as jobs in R2, a step per budget (docs/decisions/085): the console starts them, the cron carries them on.
  exports: ["auth", "console", "storage", "http", "settings", "destinations", "crypto", "platform", "text", DEFINITIONS],
  // Who is asking and may they: sign-in, sessions, Access JWTs, API tokens. The sign-in form asks for a
  // Turnstile pass past the site-wide budget (docs/decisions/027).
  auth: ["turnstile", "storage", "http", "settings", "crypto", "platform", "text"],
  // What every console page shares: its request input read through schemas, its storage-failure answer, its headers.
  console: ["storage", "http", "text"],
  // The form catalog (files and the console's forms, ADR 045), the one definition check (check.ts, which
  // knows the upload limits), patterns, the JSON Schema export.
  forms: ["conditions", "uploads", "spam", "storage", "http", "settings", "destinations", "crypto", "platform", "text", DEFINITIONS],
  // Content rules, the learning filter, Akismet and marks (docs/decisions/125): below the form check, which reads its rules.
  spam: ["storage", "http", "settings", "destinations", "crypto", "platform", "text", DEFINITIONS],
  // Conditions and steps: their language, the one evaluation, the check and the JSON Schema translation.
  conditions: ["http", "text", DEFINITIONS],
  // Gatepost's own words in every language, and which one a visitor gets (docs/decisions/075).
  i18n: ["uploads", "http", "destinations", "text", DEFINITIONS],
  storage: ["http", "settings", "destinations", "crypto", "platform", "text", DEFINITIONS],
  settings: ["http", "destinations", "crypto", "platform", "text", DEFINITIONS],
  // The form definitions and their model: data, beneath every folder that reads a form.
  [DEFINITIONS]: ["destinations", "text"],
  // Each kind's spec (<kind>/spec.ts: settings, words, its shape in a definition) and the one registry of kinds.
  destinations: ["http", "crypto", "text"],
  http: ["crypto", "platform", "text"],
  crypto: ["text"],
  // How a Worker runs: the plan's per-invocation limits, the budget each looping job spends
  // (platform/budget.server.ts), and work kept once per request or per isolate.
  platform: [],
  text: [],
};

/** The map's folders that keep their server files a layer above the rest (a ".server" twin in the map). */
const SPLIT = new Set(Object.keys(ALLOWED).flatMap((key) => (key.endsWith(".server") ? [key.slice(0, -".server".length)] : [])));

/** The map's name for the layer of `resolved` (a path in app/lib, with or without its extension). */
function layerIn(resolved: string): string {
  const folder = path.relative(LIB, resolved).split(path.sep)[0];
  return SPLIT.has(folder) && /\.server(\.tsx?)?$/.test(resolved) ? `${folder}.server` : folder;
}

/**
 * The map as layers, top first, each folder's layer one above the highest it imports: "a, b → c → …".
 * An import can only point right, so this one line is the map's direction, and docs/architecture.md prints it.
 */
export function layersOf(allowed: Readonly<Record<string, readonly string[]>>): string {
  const depth = new Map<string, number>();
  const depthOf = (folder: string): number => {
    const known = depth.get(folder);
    if (known !== undefined) return known;
    const own = Math.max(-1, ...(allowed[folder] ?? []).map(depthOf)) + 1;
    depth.set(folder, own);
    return own;
  };
  const layers: string[][] = [];
  for (const folder of Object.keys(allowed)) (layers[depthOf(folder)] ??= []).push(folder);
  return layers
    .reverse()
    .map((layer) => layer.sort().join(", "))
    .join(" → ");
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(path.join(dir, entry.name)) : /\.tsx?$/.test(entry.name) ? [path.join(dir, entry.name)] : [],
  );
}

/** The map's folder an import specifier of `file` lands in (app/forms: "~/forms"), or null when it leaves both. */
function targetFolder(file: string, specifier: string): string | null {
  const resolved = specifier.startsWith("~/")
    ? path.resolve(LIB, "..", specifier.slice(2))
    : specifier.startsWith(".")
      ? path.resolve(path.dirname(file), specifier)
      : null;
  if (resolved?.startsWith(`${FORMS}${path.sep}`)) return DEFINITIONS;
  if (!resolved || !resolved.startsWith(`${LIB}${path.sep}`)) return null;
  return layerIn(resolved);
}

/** The files of a layer of the map (a split folder's server half or the rest). */
function layerFiles(layer: string): string[] {
  if (layer === DEFINITIONS) return sourceFiles(FORMS);
  return sourceFiles(path.join(LIB, layer.replace(/\.server$/, ""))).filter((file) => layerIn(file) === layer);
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
    expect(folders).toEqual(
      Object.keys(ALLOWED)
        .filter((folder) => folder !== DEFINITIONS && !folder.endsWith(".server"))
        .sort(),
    );
    // Nothing sits in app/lib outside a folder.
    expect(readdirSync(LIB).filter((name) => /\.tsx?$/.test(name))).toEqual([]);
  });

  it("imports only downward, from every file of every folder", () => {
    const wrong: string[] = [];
    let checked = 0;
    for (const [folder, allowed] of Object.entries(ALLOWED)) {
      for (const file of layerFiles(folder)) {
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

  it("is the chain docs/architecture.md prints", () => {
    const readme = readFileSync(path.resolve(__dirname, "../../docs/architecture.md"), "utf8");
    const chain = layersOf(ALLOWED);
    expect(chain.split(" → ").length).toBeGreaterThan(5);
    expect(readme).toContain(`\n${chain}\n`);
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
    expect(targetFolder(settingsFile, "../auth/admin-user.server")).toBe("auth");
    expect(targetFolder(settingsFile, "~/lib/auth/admin-user.server")).toBe("auth");
    expect(ALLOWED.settings.includes("auth")).toBe(false);
    expect(importsOf(settingsFile).length).toBeGreaterThan(0);
    // app/forms is a folder of the map too: a form file reaching up into lib is named.
    const formFile = path.join(FORMS, "contact.ts");
    expect(targetFolder(formFile, "~/lib/submit/accept.server")).toBe("submit");
    expect(targetFolder(path.join(LIB, "forms/catalog.server.ts"), "~/forms/schema")).toBe(DEFINITIONS);
    expect(ALLOWED[DEFINITIONS].includes("submit")).toBe(false);
    expect(layerFiles(DEFINITIONS)).toContain(formFile);
    // A split folder's halves: a spec reaching its sender points up.
    const spec = path.join(LIB, "destinations/slack/spec.ts");
    expect(targetFolder(spec, "~/lib/destinations/slack/sender.server")).toBe("destinations.server");
    expect(targetFolder(spec, "./kind")).toBe("destinations");
    expect(ALLOWED.destinations.includes("destinations.server")).toBe(false);
    expect(layerFiles("destinations.server")).toContain(path.join(LIB, "destinations/slack/sender.server.ts"));
    expect(layerFiles("destinations")).not.toContain(path.join(LIB, "destinations/slack/sender.server.ts"));
  });
});
