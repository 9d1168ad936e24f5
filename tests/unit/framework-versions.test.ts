import { existsSync, readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// ADR 055 lists every known advisory of the pinned framework against the versions it names; this holds
// the install to those versions, so an override removed or a version changed fails the build until the
// ADR (and the patches and tests it names) is brought along. It reads what is installed
// (node_modules/<package>/package.json), what `npm ci` installs (package-lock.json, nested copies
// included) and what package.json asks for (its pins and `overrides`).

const ROOT = path.resolve(__dirname, "../..");
const ADR = path.join(ROOT, "docs/decisions/055-remix-v2-advisories-closed-and-checked.md");
// ADR 106: the lowest fixed version of each line of the dev tools' `ws` and `undici`, and Miniflare's overrides.
const TOOLING_ADR = path.join(ROOT, "docs/decisions/106-dev-tooling-advisories-and-single-fetch-held-off.md");
const read = (file: string) => readFileSync(path.join(ROOT, file), "utf8");

// The framework: Remix's and React Router's packages and wrangler. @remix-run's web-* polyfills,
// headers and multipart-parser are libraries of their own, not the framework.
const FRAMEWORK = /^(?:@remix-run\/(?!web-|headers$|multipart-parser$)[^/]+|@react-router\/[^/]+|react-router(?:-dom)?|wrangler)$/;

/** The ADR's table of pinned versions: `| \`a\`, \`b\` | 1.2.3 |` rows. */
function pinnedVersions(adr: string): Map<string, string> {
  const pinned = new Map<string, string>();
  for (const [, names, version] of adr.matchAll(/^\| ((?:`[^`]+`(?:, )?)+) \| (\d+\.\d+\.\d+) \|$/gm)) {
    for (const [, name] of names.matchAll(/`([^`]+)`/g)) pinned.set(name, version);
  }
  return pinned;
}

const pinned = pinnedVersions(readFileSync(ADR, "utf8"));
const lock = JSON.parse(read("package-lock.json")) as { packages: Record<string, { version?: string }> };
const manifest = JSON.parse(read("package.json")) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  overrides: Record<string, unknown>;
};

/** Every copy package-lock.json installs, by package name: its path and version. */
function lockedCopies(): Map<string, Array<[string, string | undefined]>> {
  const copies = new Map<string, Array<[string, string | undefined]>>();
  for (const [where, entry] of Object.entries(lock.packages)) {
    const name = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)$/.exec(where)?.[1];
    if (name) copies.set(name, [...(copies.get(name) ?? []), [where, entry.version]]);
  }
  return copies;
}

describe("the framework's versions (ADR 055)", () => {
  it("the ADR names the versions of Remix, the router and wrangler", () => {
    expect([...pinned.keys()]).toEqual(expect.arrayContaining(["@remix-run/react", "@remix-run/router", "react-router-dom", "wrangler"]));
  });

  it("every framework package npm installs is in the ADR, at its version, in one copy", () => {
    const found = [...lockedCopies()].filter(([name]) => FRAMEWORK.test(name));
    expect(found.map(([name]) => name).sort()).toEqual([...pinned.keys()].sort());
    for (const [name, copies] of found) expect([name, copies]).toEqual([name, [[`node_modules/${name}`, pinned.get(name)]]]);
  });

  it("is what node_modules holds", () => {
    for (const [name, version] of pinned) {
      const installed = JSON.parse(read(`node_modules/${name}/package.json`)) as { version: string };
      expect([name, installed.version], "run npm ci").toEqual([name, version]);
    }
  });

  it("package.json pins each direct dependency and overrides the router Remix pins lower", () => {
    for (const [name, version] of pinned) {
      const wanted = manifest.dependencies[name] ?? manifest.devDependencies[name];
      if (wanted !== undefined) expect([name, wanted]).toEqual([name, version]);
    }
    for (const name of ["@remix-run/router", "react-router", "react-router-dom"]) {
      expect([name, manifest.overrides[name]]).toEqual([name, pinned.get(name)]);
    }
  });

  it("names tests that exist, and patches that are in patches/", () => {
    const adr = readFileSync(ADR, "utf8");
    const table = adr.slice(adr.indexOf("| Advisory |"), adr.indexOf("\n\n", adr.indexOf("| Advisory |")));
    const tests = [...table.matchAll(/^\|[^\n]*\| ([^|\n]+) \|$/gm)].flatMap(([, cell]) =>
      [...cell.matchAll(/`(?:tests\/\w+\/)?([\w-]+)`/g)].map((m) => m[1]),
    );
    const files = ["unit", "workers", "e2e"].flatMap((layer) => readdirSync(path.join(ROOT, "tests", layer)));
    expect(tests.length).toBeGreaterThan(5);
    expect(tests.filter((name) => !files.includes(`${name}.test.ts`))).toEqual([]);
    for (const [name, version] of pinned) {
      const patch = `patches/${name.replace("/", "+")}+${version}.patch`;
      const stale = readdirSync(path.join(ROOT, "patches")).filter((file) => file.startsWith(`${name.replace("/", "+")}+`));
      expect([name, stale]).toEqual([name, existsSync(path.join(ROOT, patch)) ? [path.basename(patch)] : []]);
    }
  });
});

/** ADR 106's table: `| \`ws\` 8 | 8.21.0 | …` rows, by package and major line. */
function fixedFrom(adr: string): Map<string, string> {
  const fixed = new Map<string, string>();
  for (const [, name, line, version] of adr.matchAll(/^\| `([^`]+)` (\d+) \| (\d+\.\d+\.\d+) \|/gm)) fixed.set(`${name}@${line}`, version);
  return fixed;
}

const atLeast = (version: string, lowest: string) => {
  const [a, b] = [version, lowest].map((v) => v.split(".").map(Number));
  const differs = a.findIndex((part, i) => part !== b[i]);
  return differs === -1 || a[differs] > b[differs];
};

describe("the dev tools' ws and undici (ADR 106)", () => {
  const adr = readFileSync(TOOLING_ADR, "utf8");
  const fixed = fixedFrom(adr);

  it("the ADR names a fixed version for each line", () => {
    expect([...fixed.keys()]).toEqual(expect.arrayContaining(["ws@8", "ws@7", "undici@7", "undici@6"]));
    expect(atLeast("7.30.2", "7.29.0") && atLeast("8.21.0", "8.21.0") && !atLeast("8.18.0", "8.21.0") && !atLeast("7.5.9", "7.5.11")).toBe(
      true,
    );
  });

  it("every copy npm installs is at or past the fixed version of its line", () => {
    for (const name of ["ws", "undici"]) {
      const copies = lockedCopies().get(name) ?? [];
      expect(copies.length).toBeGreaterThan(0);
      for (const [where, version] of copies) {
        const lowest = fixed.get(`${name}@${version?.split(".")[0]}`);
        expect([where, version, lowest ? atLeast(version!, lowest) : "no row for this line in ADR 106"]).toEqual([where, version, true]);
      }
    }
  });

  it("package.json lifts Miniflare's copies to the versions the ADR names, and node_modules holds them", () => {
    const lifted = manifest.overrides.miniflare as Record<string, string>;
    expect(Object.keys(lifted).sort()).toEqual(["undici", "ws"]);
    for (const [name, version] of Object.entries(lifted)) {
      expect(adr, `ADR 106 names ${name} ${version}`).toContain(`\`${name}\` ${version}`);
      const installed = JSON.parse(read(`node_modules/miniflare/node_modules/${name}/package.json`)) as { version: string };
      expect([name, installed.version], "run npm ci").toEqual([name, version]);
    }
  });
});
