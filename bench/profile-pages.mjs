// Where a page view's time goes: a sampling profile (workerd's inspector) of the bare app's GET / and
// Gatepost's pages under load in workerd through Miniflare, side by side, grouped by package and by
// function. A diagnostic beside `npm run bench`, not a target: it builds and bundles the apps (with
// PROFILE_SKIP_BUILD=1 it reuses Gatepost's build/) and prints its report to stdout only.
//
//   node bench/profile-pages.mjs [path ...]        default: / /f/contact
//   PROFILE_SECONDS=6 PROFILE_TOP=12 PROFILE_CONNECTIONS=10
import { prepareApps } from "./lib/apps.mjs";
import { warmUp } from "./lib/load.mjs";
import { profileGets } from "./lib/profile.mjs";
import { startServer, stopAllServers } from "./lib/servers.mjs";

const SECONDS = Number(process.env.PROFILE_SECONDS || 6);
const CONNECTIONS = Number(process.env.PROFILE_CONNECTIONS || 10);
const paths = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ["/", "/f/contact"];

const watchdog = setTimeout(async () => {
  console.error("profile-pages: watchdog after 10 minutes, stopping");
  await stopAllServers();
  process.exit(1);
}, 600_000);

try {
  const apps = prepareApps({ skipBuild: Boolean(process.env.PROFILE_SKIP_BUILD) });
  const base = await startServer("miniflare", apps.baseline, { name: "profile-pages-base", inspect: true });
  const ours = await startServer("miniflare", apps.gatepost, {
    name: "profile-pages-ours",
    inspect: true,
    bindings: { TURNSTILE_SITE_KEY: "1x00000000000000000000AA", FORM_SIGNING_SECRET: "profile-pages-signing-secret-0123456789abcdef" },
  });
  const runs = [["bare app /", base, "/"], ...paths.map((p) => [`gatepost ${p}`, ours, p])];
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
  await stopAllServers();
  clearTimeout(watchdog);
}
