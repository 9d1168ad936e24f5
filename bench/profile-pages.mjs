// Where a page view's time goes: a sampling profile (workerd's inspector) of the baseline's GET / and
// Gatepost's pages under load in workerd through Miniflare, side by side, grouped by package and by
// function. A diagnostic beside `npm run bench`, not a target: it builds nothing (run `npm run build`
// and the bench once first, or set PROFILE_BUILD=1) and writes nothing but its report to stdout.
//
//   node bench/profile-pages.mjs [path ...]        default: / /f/contact
//   PROFILE_SECONDS=6 PROFILE_TOP=12 PROFILE_CONNECTIONS=10
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { BASELINE_DIR, buildBaseline } from "./build-baseline.mjs";
import { warmUp } from "./lib/load.mjs";
import { profileGets } from "./lib/profile.mjs";
import { freePort, ROOT, startFreshMiniflare } from "./lib/servers.mjs";

const SECONDS = Number(process.env.PROFILE_SECONDS || 6);
const CONNECTIONS = Number(process.env.PROFILE_CONNECTIONS || 10);
const paths = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ["/", "/f/contact"];

if (process.env.PROFILE_BUILD) {
  if (spawnSync("npm", ["run", "build"], { cwd: ROOT, stdio: "inherit" }).status !== 0) throw new Error("npm run build failed");
  buildBaseline();
}
if (!existsSync(path.join(BASELINE_DIR, "functions"))) buildBaseline();

const stops = [];
const watchdog = setTimeout(async () => {
  console.error("profile-pages: watchdog after 10 minutes, stopping");
  await Promise.allSettled(stops.map((stop) => stop()));
  process.exit(1);
}, 600_000);

async function start(cwd, name, bindings) {
  const server = await startFreshMiniflare({ cwd, bindings, name, inspectorPort: await freePort() });
  stops.push(server.stop);
  return server;
}

try {
  const base = await start(BASELINE_DIR, "profile-pages-base", { TURNSTILE_SECRET_KEY: "1x0000000000000000000000000000000AA" });
  const ours = await start(ROOT, "profile-pages-ours", {
    TURNSTILE_SITE_KEY: "1x00000000000000000000AA",
    TURNSTILE_SECRET_KEY: "1x0000000000000000000000000000000AA",
    FORM_SIGNING_SECRET: "profile-pages-signing-secret-0123456789abcdef",
  });
  const runs = [["baseline /", base, "/"], ...paths.map((p) => [`gatepost ${p}`, ours, p])];
  for (const [label, server, pathname] of runs) {
    await warmUp(`${server.url}${pathname}`, {}, 200);
    const r = await profileGets(server, pathname, { duration: SECONDS, connections: CONNECTIONS });
    console.log(`\n## ${label}: ${r.cpuMsPerRequest} ms isolate CPU per view, ${r.rps} req/s, ${r.count} views`);
    for (const [title, list] of [
      ["groups", r.topGroups],
      ["functions", r.topFunctions],
      ["app functions", r.topAppFunctions],
    ]) {
      console.log(`${title}:`);
      for (const f of list) console.log(`  ${f.msPerRequest.toFixed(3)} ms  ${f.share}%  ${f.name}`);
    }
  }
} finally {
  await Promise.allSettled(stops.map((stop) => stop()));
  clearTimeout(watchdog);
}
