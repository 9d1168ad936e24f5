// Builds the bare Remix app on Workers (bench/baseline) with the installed packages, ready for `wrangler dev` or
// a dry-run deploy: "bare" (the template's routes, what every target compares against) or "routes" (as many bare
// routes as Gatepost has, so a route table that size stays visible). Used by `npm run bench` and js-budget.test.ts.
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

/** The routes variant: the bare app with Gatepost's other route files as bare modules. */
function writeRoutesApp(appDir) {
  mkdirSync(path.join(appDir, "routes"), { recursive: true });
  for (const file of ["root.tsx", "entry.server.tsx", "routes/_index.tsx"]) {
    copyFileSync(path.join(SOURCE, "app", file), path.join(appDir, file));
  }
  const names = readdirSync(path.join(ROOT, "app/routes")).map((file) => file.replace(/\.tsx?$/, ""));
  for (const name of names.filter((n) => n !== "_index")) writeFileSync(path.join(appDir, "routes", `${name}.tsx`), BARE_ROUTE);
  return names.length;
}

/** Builds one variant into its emptied folder and returns it. Throws with the build's output. */
export function buildBaseline({ variant = "bare" } = {}) {
  const dir = variant === "routes" ? ROUTES_BASELINE_DIR : BASELINE_DIR;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  // Under vitest NODE_ENV is "test": React's development build would hide any page over the JS budget.
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
