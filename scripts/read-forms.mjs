// The form files, for `npm start` in plain Node, where Vite's glob (app/forms/modules.ts) does not reach.
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";

const ROOT = new URL("..", import.meta.url);
const FORMS_DIR = new URL("app/forms/", ROOT);
/** The files in app/forms/ that are not forms; the same list as app/forms/modules.ts' glob. */
export const NOT_FORMS = new Set(["modules.ts", "schema.ts"]);

/** The form files' names ("contact.ts", …), sorted. Throws if app/forms/ is unreadable. */
export function listFormFiles(dir = FORMS_DIR) {
  return readdirSync(dir)
    .filter((name) => name.endsWith(".ts") && !name.endsWith(".test.ts") && !NOT_FORMS.has(name))
    .sort();
}

/** Every form's id, destination kinds and setting names, bundled from the form files with esbuild. */
export async function loadForms(root = ROOT) {
  const { build } = await import("esbuild");
  const rootPath = fileURLToPath(root);
  const files = listFormFiles(new URL("app/forms/", root));
  const entry = [
    `import { FORM_SETTING_SUFFIXES, formSettingName } from "./app/lib/settings/settings.server";`,
    `import { checkForms, collectForms } from "./app/lib/forms/check";`,
    ...files.map((file, i) => `import * as form${i} from "./app/forms/${file.slice(0, -3)}";`),
    `const forms = checkForms(collectForms({ ${files.map((file, i) => `"./${file}": form${i}`).join(", ")} }));`,
    `export default forms.map((form) => ({`,
    `  id: form.id,`,
    `  destinations: form.destinations.map((d) => d.kind),`,
    `  settings: Object.fromEntries(FORM_SETTING_SUFFIXES.map((suffix) => [suffix, formSettingName(form.id, suffix)])),`,
    `}));`,
  ].join("\n");
  const result = await build({
    stdin: { contents: entry, resolveDir: rootPath, loader: "ts", sourcefile: "forms-entry.ts" },
    bundle: true,
    write: false,
    format: "esm",
    platform: "node",
    tsconfig: fileURLToPath(new URL("tsconfig.json", root)),
    logLevel: "silent",
  });
  const code = result.outputFiles[0].text;
  return (await import(`data:text/javascript;base64,${Buffer.from(code).toString("base64")}`)).default;
}
