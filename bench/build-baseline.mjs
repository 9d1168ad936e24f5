// Builds the bare Remix app on Workers (bench/baseline) with this repository's installed packages:
// `remix vite:build`, then its Worker entry and wrangler.toml beside the build, ready for `wrangler dev`
// or `wrangler deploy --dry-run` from that folder. Two variants:
// - "bare" (bench/.baseline/bare): the template's two routes, what every target compares against;
// - "routes" (bench/.baseline/routes): the same app with as many routes as Gatepost, one bare module
//   per file of app/routes under the same name (so the same paths, params and nesting), which keeps
//   the cost of a route table that size visible.
// Used by `npm run bench` and by tests/e2e/js-budget.test.ts (the bare variant).
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const SOURCE = fileURLToPath(new URL("./baseline/", import.meta.url));
const OUT = fileURLToPath(new URL("./.baseline/", import.meta.url));
export const BASELINE_DIR = path.join(OUT, "bare");
export const BASELINE_CLIENT = path.join(BASELINE_DIR, "build/client/");
export const ROUTES_BASELINE_DIR = path.join(OUT, "routes");

/** A leaf or a layout alike: nothing but an outlet, so only the route table differs from the bare app. */
const BARE_ROUTE = `import { Outlet } from "@remix-run/react";

export default function Route() {
  return <Outlet />;
}
`;

/** Writes the routes variant's app folder: the bare app's root, entry and index, and Gatepost's other route files as bare modules. */
function writeRoutesApp(appDir) {
  mkdirSync(path.join(appDir, "routes"), { recursive: true });
  for (const file of ["root.tsx", "entry.server.tsx", "routes/_index.tsx"]) {
    copyFileSync(path.join(SOURCE, "app", file), path.join(appDir, file));
  }
  const names = readdirSync(path.join(ROOT, "app/routes")).map((file) => file.replace(/\.tsx?$/, ""));
  for (const name of names.filter((n) => n !== "_index")) writeFileSync(path.join(appDir, "routes", `${name}.tsx`), BARE_ROUTE);
  return names.length;
}

/**
 * Builds one variant into its folder (emptied first) and returns that folder. Throws with the build
 * output when it fails. Takes a few seconds.
 */
export function buildBaseline({ variant = "bare" } = {}) {
  const dir = variant === "routes" ? ROUTES_BASELINE_DIR : BASELINE_DIR;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  // A production build whoever calls: under vitest NODE_ENV is "test", and Vite would bundle React's
  // development build, some 55 KiB gzip more, which would hide any page over the JS budget.
  const env = { ...process.env, NODE_ENV: "production", NO_COLOR: "1", BASELINE_BUILD_DIR: path.join(dir, "build") };
  if (variant === "routes") {
    env.BASELINE_APP_DIR = path.join(dir, "app");
    writeRoutesApp(env.BASELINE_APP_DIR);
  }
  const result = spawnSync(process.execPath, ["node_modules/@remix-run/dev/dist/cli.js", "vite:build", "bench/baseline", "--emptyOutDir"], {
    cwd: ROOT,
    encoding: "utf8",
    env,
  });
  if (result.status !== 0) throw new Error(`baseline (${variant}) build failed:\n${result.stdout}\n${result.stderr}`);
  copyFileSync(path.join(SOURCE, "server.js"), path.join(dir, "server.js"));
  copyFileSync(path.join(SOURCE, "wrangler.toml"), path.join(dir, "wrangler.toml"));
  return dir;
}
