import { defineConfig } from "vitest/config";
import tsconfigPaths from "vite-tsconfig-paths";
import { aliasPatchedBuilds } from "./patches/formats";

// Unit tests in plain Node: no workerd, no Remix plugins.
export default defineConfig({
  plugins: [tsconfigPaths()],
  // The builds of the patched packages the app loads (ADR 116), so the tests attack those.
  resolve: { alias: aliasPatchedBuilds() },
  test: {
    environment: "node",
    include: ["tests/unit/**/*.test.ts"],
    setupFiles: ["tests/support/fail-on-console.ts"],
  },
});
