// Every form file in this folder, found by Vite's import.meta.glob: adding a form is adding its file.
// Vite builds the app and runs both vitest layers, so all of them see the glob; the Worker reaches
// the app only through Vite's server build (functions/server-build.ts, ADR 030).
export const FORM_MODULES: Record<string, Record<string, unknown>> = import.meta.glob(
  ["./*.ts", "!./modules.ts", "!./schema.ts", "!./*.test.ts"],
  { eager: true },
);
