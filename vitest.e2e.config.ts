import { defineConfig } from "vitest/config";

// End-to-end tests: real Chromium (playwright-core) against `wrangler pages dev` serving the built app,
// with the local Turnstile stand-in. One file at a time: the machine has two cores and pages dev is slow.
export default defineConfig({
  test: {
    environment: "node",
    include: ["tests/e2e/**/*.test.ts"],
    globalSetup: ["tests/e2e/global-setup.ts"],
    fileParallelism: false,
    // wrangler pages dev here now and then stalls every request for a minute or more (seen on a plain
    // GET of / as well as on posts), whatever the app does. A test gets two more tries; one that fails
    // every time still fails the run.
    retry: 2,
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
