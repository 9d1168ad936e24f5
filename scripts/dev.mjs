// `npm run dev`: Vite's dev server with hot reload for working on the app's code. Remix renders in Node
// (the builds of the patched packages patches/formats.ts names), beside a local D1 and R2 from wrangler's
// platform proxy (vite.config.ts). It migrates the local D1 first and runs with `npm start`'s local
// settings (scripts/local-settings.mjs), any environment variable winning, handed to the proxy as an
// env file. Not the Worker: no cron, no e-mail, no guards of functions/fetch.ts; `npm start` is that.
// Arguments go to `remix vite:dev` (--port, --host), except `--persist-to <dir>` for another local state.
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
