import { vitePlugin as remix, cloudflareDevProxyVitePlugin as remixCloudflareDevProxy } from "@remix-run/dev";
import { defineConfig } from "vite";
import tsconfigPaths from "vite-tsconfig-paths";
import { getLoadContext } from "./load-context";

export default defineConfig({
  plugins: [
    // The same getLoadContext as functions/[[path]].ts, so `npm run dev` and Pages see one context.
    remixCloudflareDevProxy({ getLoadContext }),
    remix({
      // v3_singleFetch stays off: the loader data goes into the document as one inline script, so
      // every page renders to a string in one pass (app/entry.server.tsx, ADR 011).
      future: {
        v3_fetcherPersist: true,
        v3_relativeSplatPath: true,
        v3_throwAbortReason: true,
        v3_lazyRouteDiscovery: true,
      },
    }),
    tsconfigPaths(),
  ],
});
