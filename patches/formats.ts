import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Plugin } from "vite";

// Each patched package ships an ESM and a CommonJS build. Every build of Gatepost loads the same one,
// so each patch writes its change once (ADR 116): this table says which, and the tests check it.

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** Import specifier → the one file every build loads for it, under node_modules. */
export const PATCHED_BUILDS = {
  // ESM: the browser's router must stay tree-shaken; the router patch points `main` here too, so Node's
  // require() (Remix's request handler under `npm run dev`) and wrangler's esbuild load it as well.
  "@remix-run/router": "@remix-run/router/dist/router.js",
  // ESM: its CommonJS index would bring RemixServer and react-dom/server into the browser.
  "@remix-run/react": "@remix-run/react/dist/esm/index.js",
  // CommonJS, server only: what Node requires under `npm run dev` and wrangler bundles into the Worker.
  "@remix-run/server-runtime": "@remix-run/server-runtime/dist/index.js",
  "react-router-dom/server": "react-router-dom/server.js",
} as const;

const SERVER_ONLY = new Set<string>(["@remix-run/server-runtime", "react-router-dom/server"]);

export type PatchedSpecifier = keyof typeof PATCHED_BUILDS;

/** The file a specifier is pinned to, as an absolute path. */
export function resolvePatchedBuild(specifier: PatchedSpecifier): string {
  return path.join(ROOT, "node_modules", PATCHED_BUILDS[specifier]);
}

/** The table as exact Vite aliases, for a Vite that bundles every dependency (the workers tests' workerd). */
export function aliasPatchedBuilds(): Array<{ find: RegExp; replacement: string }> {
  return (Object.keys(PATCHED_BUILDS) as PatchedSpecifier[]).map((specifier) => ({
    find: new RegExp(`^${specifier.replace(/[/.-]/g, "\\$&")}$`),
    replacement: resolvePatchedBuild(specifier),
  }));
}

/**
 * For `remix vite:build` and `npm run dev`. The dev server's pre-bundles for the browser follow the table
 * (they hold @remix-run/react whole, RemixServer and its static router included). Node renders `npm run
 * dev`'s pages and would load @remix-run/react's CommonJS: Vite loads its ESM build there instead. The
 * browser build and the Worker's esbuild pick the table's files themselves (tests/e2e/server-bundle).
 */
export function pinPatchedBuilds(): Plugin {
  const filter = new RegExp(aliasPatchedBuilds().map(({ find }) => find.source).join("|"));
  let command = "serve";
  return {
    name: "gatepost-patched-builds",
    enforce: "pre",
    configResolved: (config) => void (command = config.command),
    config: (_config, { command }) => ({
      ssr: command === "serve" ? { noExternal: ["@remix-run/react"] } : undefined,
      optimizeDeps: {
        esbuildOptions: {
          plugins: [
            {
              name: "gatepost-patched-builds",
              setup: (build) => build.onResolve({ filter }, ({ path: id }) => ({ path: resolvePatchedBuild(id as PatchedSpecifier) })),
            },
          ],
        },
      },
    }),
    resolveId(id, _importer, options) {
      // The browser never runs the server-only ones: its pre-bundles must not hold their ESM builds either.
      if (command !== "serve" || options?.ssr || !SERVER_ONLY.has(id)) return null;
      return resolvePatchedBuild(id as PatchedSpecifier);
    },
  };
}
