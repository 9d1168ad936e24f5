import { startMiniflare, applyMigrations, freePort, ROOT } from "./lib/servers.mjs";
import { BASELINE_DIR } from "./build-baseline.mjs";
import { loadGet, warmUp } from "./lib/load.mjs";
import { mkdirSync, rmSync } from "node:fs";
import path from "node:path";
const servers = {};
for (const [name, cwd, fn] of [["base", BASELINE_DIR, "[[path]].js"], ["many", path.join(BASELINE_DIR, "many"), "[[path]].js"], ["ours", ROOT, "[[path]].ts"]]) {
  const state = "/tmp/many-" + name; rmSync(state, { recursive: true, force: true }); mkdirSync(state);
  applyMigrations({ cwd: ROOT, persistTo: state });
  servers[name] = await startMiniflare({ cwd, functionFile: fn, port: await freePort(), persistTo: state, bindings: { FORM_SIGNING_SECRET: "0123456789abcdef0123456789abcdef0123" } });
  await warmUp(servers[name].url + "/");
}
const res = { base: [], many: [], ours: [] };
for (let i = 0; i < 3; i++) for (const n of ["base", "many", "ours"]) res[n].push((await loadGet(servers[n].url + "/", { duration: 3, connections: 10 })).rps);
console.log(JSON.stringify(res));
const html = {}; for (const n of ["base","many","ours"]) html[n] = (await (await fetch(servers[n].url + "/")).text()).length;
console.log("html bytes", JSON.stringify(html));
for (const s of Object.values(servers)) await s.stop();
