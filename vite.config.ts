import { vitePlugin as remix, cloudflareDevProxyVitePlugin as remixCloudflareDevProxy } from "@remix-run/dev";
import { defineConfig, type Rollup, type ViteDevServer } from "vite";
import tsconfigPaths from "vite-tsconfig-paths";
import { pinPatchedBuilds } from "./patches/formats";

// load-context.ts and the app modules it reads import with the `~/` alias, which Vite's config loader
// (esbuild, before any plugin runs) cannot resolve. So the config never imports them: `npm run dev`'s
// proxy loads load-context.ts per request through the dev server, whose resolver has tsconfig's paths.
let devServer: ViteDevServer | undefined;
type LoadContextModule = typeof import("./load-context");
const getLoadContext = async (args: Parameters<LoadContextModule["getLoadContext"]>[0]) => {
  if (!devServer) throw new Error("the load context is asked for before the dev server started");
  const loaded = (await devServer.ssrLoadModule("/load-context.ts")) as LoadContextModule;
  return loaded.getLoadContext(args);
};

// `npm run dev` (scripts/dev.mjs) hands the platform proxy its local settings as an env file, and
// another local state when asked; plain `remix vite:dev` reads .dev.vars and .wrangler/state.
const { GATEPOST_DEV_ENV_FILE: envFile, GATEPOST_DEV_PERSIST_TO: persistTo } = process.env;

/**
 * Rollup warnings that say nothing to act on, by their cause:
 * - Remix gives every route a client chunk, and a resource route (an API, a download, /healthz) has
 *   no component, so its chunk is empty by design;
 * - the server bundle is one file, so the sign-in page's on-demand import of the captcha widget is not
 *   split there; the client build splits it (ADR 027).
 * Every other warning is shown.
 */
function onwarn(warning: Rollup.RollupLog, show: (warning: Rollup.RollupLog) => void, ssr: boolean) {
  if (warning.code === "EMPTY_BUNDLE" && !ssr) return;
  if (ssr && warning.plugin === "vite:reporter" && /captcha-widget\.tsx is dynamically imported by/.test(warning.message)) return;
  show(warning);
}

export default defineConfig(({ isSsrBuild = false }) => ({
  build: { rollupOptions: { onwarn: (warning, show) => onwarn(warning, show, isSsrBuild) } },
  plugins: [
    // One build of each patched package, wherever it is loaded (ADR 116).
    pinPatchedBuilds(),
    { name: "gatepost:dev-server", configureServer: (server) => void (devServer = server) },
    // The same load context as the Worker (functions/fetch.ts), so `npm run dev` and the Worker see one context.
    remixCloudflareDevProxy({
      getLoadContext,
      envFiles: envFile ? [envFile] : undefined,
      // wrangler's --persist-to keeps its state under v3/; the proxy takes that folder itself.
      persist: persistTo ? { path: `${persistTo}/v3` } : true,
    }),
    remix({
      // v3_singleFetch stays off: the loader data goes into the document as one inline script, so
      // every page renders to a string in one pass (app/entry.server.tsx, ADR 011).
      future: {
        v3_singleFetch: false,
        v3_fetcherPersist: true,
        v3_relativeSplatPath: true,
        v3_throwAbortReason: true,
        v3_lazyRouteDiscovery: true,
      },
    }),
    tsconfigPaths(),
  ],
}));
