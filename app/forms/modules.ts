// Every form file in this folder, found by Vite's import.meta.glob: adding a form is adding its file.
// Vite builds the app and runs both vitest layers, so all of them see the glob. The drain Worker is
// bundled by wrangler (esbuild), which has no glob: its wrangler.toml aliases this module to one
// generated before each bundle by scripts/form-modules.mjs (ADR 018).
export const FORM_MODULES: Record<string, Record<string, unknown>> = import.meta.glob(
  ["./*.ts", "!./modules.ts", "!./registry.ts", "!./schema.ts", "!./check.ts", "!./*.test.ts"],
  { eager: true },
);
