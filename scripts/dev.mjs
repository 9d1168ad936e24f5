// `npm run dev`: Vite's dev server with hot reload, Remix in Node beside wrangler's local D1 and R2, with `npm
// start`'s local settings. Not the Worker (no cron, e-mail or functions/ guards); arguments go to `remix vite:dev`.
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { localSettings } from "./local-settings.mjs";
import { loadForms } from "./read-forms.mjs";
import { applyLocalMigrations } from "./worker-dev.mjs";
import { writeSettingsFile } from "./settings-file.mjs";

const REMIX = fileURLToPath(new URL("../node_modules/@remix-run/dev/dist/cli.js", import.meta.url));

const args = process.argv.slice(2);
const at = args.indexOf("--persist-to");
const persistTo = at >= 0 ? path.resolve(args.splice(at, 2)[1]) : undefined;

applyLocalMigrations({ persistTo });
const { settings, password } = await localSettings(await loadForms());
const settingsFile = writeSettingsFile(settings, { name: "gatepost-dev-" });
if (password) console.log(`Console password for this run: ${password}`);

const env = { ...process.env, GATEPOST_DEV_ENV_FILE: settingsFile.path };
if (persistTo) env.GATEPOST_DEV_PERSIST_TO = persistTo;
// In this process's group, so Ctrl-C (or a stop of the group) reaches Vite and the workerd it starts.
const vite = spawn(process.execPath, [REMIX, "vite:dev", ...args], { env, stdio: "inherit" });
vite.on("exit", (code, signal) => {
  settingsFile.remove();
  process.exit(code ?? (signal ? 1 : 0));
});
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => vite.kill(signal));
