import { vitePlugin as remix } from "@remix-run/dev";
import { defineConfig } from "vite";

// The bare Remix Cloudflare app Gatepost is measured against: the template's shape, the same package
// versions (this repo's node_modules) and the same future flags. Built into bench/.baseline (ignored).
export default defineConfig({
  plugins: [
    remix({
      buildDirectory: "../.baseline/build",
      future: {
        v3_fetcherPersist: true,
        v3_relativeSplatPath: true,
        v3_throwAbortReason: true,
        v3_singleFetch: true,
        v3_lazyRouteDiscovery: true,
      },
    }),
  ],
});
