import { vitePlugin as remix } from "@remix-run/dev";
import { defineConfig } from "vite";

// The bare Remix app Gatepost is measured against: the Workers template's shape, the same package
// versions (this repo's node_modules) and the same future flags. bench/build-baseline.mjs chooses the
// app folder (this one, or a generated copy with Gatepost's route table) and the output folder.
export default defineConfig({
  plugins: [
    remix({
      appDirectory: process.env.BASELINE_APP_DIR || "app",
      buildDirectory: process.env.BASELINE_BUILD_DIR || "../.baseline/bare/build",
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
