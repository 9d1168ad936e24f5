import { defineConfig } from "vitest/config";
import tsconfigPaths from "vite-tsconfig-paths";

// End-to-end tests: real Chromium (playwright-core) against `wrangler pages dev` serving the built app,
// with the local Turnstile stand-in. One file at a time: the machine has two cores and pages dev is slow.
export default defineConfig({
  // Tests may read the app's own texts (the language catalogues) rather than copy them.
  plugins: [tsconfigPaths()],
  test: {
    environment: "node",
    include: ["tests/e2e/**/*.test.ts"],
    globalSetup: ["tests/e2e/global-setup.ts"],
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
