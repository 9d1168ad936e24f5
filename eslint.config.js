import js from "@eslint/js";
import prettier from "eslint-config-prettier";
import jsxA11y from "eslint-plugin-jsx-a11y";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import tseslint from "typescript-eslint";

// Lint finds bugs; Prettier owns the layout (eslint-config-prettier turns off the rules it would fight).
export default tseslint.config(
  { ignores: ["build/", ".wrangler/", "bench/.baseline/", "bench/results/", "tests/artifacts/", "worker-configuration.d.ts"] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    files: ["**/*.{ts,tsx,js,mjs}"],
    languageOptions: { globals: { ...globals.node, ...globals.browser, ...globals.serviceworker } },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
      "@typescript-eslint/no-unused-expressions": ["error", { allowTernary: true }],
    },
  },
  {
    files: ["app/**/*.tsx"],
    plugins: { "react-hooks": reactHooks },
    // The two rules of hooks. The plugin's other recommended rules (refs, set-state-in-effect, …) check
    // code for the React Compiler; Gatepost runs React 18 without it, and its "latest props in a ref"
    // and "hydrated" effects are the patterns those rules steer compiler users away from.
    rules: { "react-hooks/rules-of-hooks": "error", "react-hooks/exhaustive-deps": "error" },
  },
  { files: ["app/**/*.tsx"], ...jsxA11y.flatConfigs.recommended },
  {
    files: ["app/**/*.tsx"],
    // A table that scrolls inside its box is a focusable region, so keyboard users can scroll it
    // (axe's scrollable-region-focusable asks for exactly that).
    rules: { "jsx-a11y/no-noninteractive-tabindex": ["error", { roles: ["region"], tags: [] }] },
  },
  {
    files: ["tests/**/*.ts"],
    // Tests read untyped D1 rows and JSON bodies; a wrong field fails the assertion that reads it.
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
  prettier,
);
