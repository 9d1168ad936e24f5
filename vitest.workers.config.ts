import path from "node:path";
import { defineWorkersConfig, readD1Migrations } from "@cloudflare/vitest-pool-workers/config";
import tsconfigPaths from "vite-tsconfig-paths";
import { aliasPatchedBuilds } from "./patches/formats";

// Tests inside workerd with real local D1, through @cloudflare/vitest-pool-workers 0.12 (the
// defineWorkersConfig / "cloudflare:test" generation of its API, used throughout).
export default defineWorkersConfig(async () => {
  const migrations = await readD1Migrations(path.join(__dirname, "migrations"));
  return {
    plugins: [tsconfigPaths()],
    // workerd gets the builds of the patched packages the Worker runs (ADR 116), pre-bundled below.
    resolve: { alias: aliasPatchedBuilds() },
    test: {
      include: ["tests/workers/**/*.test.ts"],
      globalSetup: ["tests/workers/global-setup.ts"],
      // A console.error nobody expected fails the test, as in the unit layer (tests/support/fail-on-console.ts).
      setupFiles: ["tests/workers/apply-migrations.ts", "tests/support/fail-on-console.ts"],
      // Pre-bundled for workerd: without it @remix-run/cloudflare (CommonJS) fails on createCookieFactory
      // and the built server sees two copies of react-router's contexts.
      deps: {
        optimizer: {
          ssr: {
            enabled: true,
            include: [
              "@remix-run/cloudflare",
              "@remix-run/server-runtime",
              "@remix-run/react",
              "react-router",
              "react-router-dom",
              "react",
              "react-dom",
              "react-dom/server",
              "react/jsx-runtime",
              "react-turnstile",
            ],
          },
        },
      },
      poolOptions: {
        workers: {
          singleWorker: true,
          // The Worker's own config: its main (functions/index.ts) and every binding it holds, D1,
          // send_email (simulated), the rate limiter and R2 among them.
          wrangler: { configPath: "./wrangler.toml" },
          miniflare: { bindings: { TEST_MIGRATIONS: migrations } },
        },
      },
    },
  };
});
