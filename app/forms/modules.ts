// Every form file here, found by Vite's import.meta.glob: adding a form is adding its file (ADR 030).
export const FORM_MODULES: Record<string, Record<string, unknown>> = import.meta.glob(
  ["./*.ts", "!./modules.ts", "!./schema.ts", "!./*.test.ts"],
  { eager: true },
);
