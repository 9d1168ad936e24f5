// Child process of bench/lib/servers.mjs: one Worker in workerd through Miniflare, configured from
// its wrangler config (wrangler's own unstable_getMiniflareWorkerOptions: D1, R2, send_email, rate
// limits, static assets, vars) and running the bundle `wrangler deploy --dry-run` wrote. Run in a
// process group of its own, so stopping the group stops workerd with it. Prints one JSON line with
// its URL once ready; disposes Miniflare on SIGTERM. Options come as JSON in BENCH_MINIFLARE.
import { readdirSync } from "node:fs";
import path from "node:path";
import { Log, LogLevel, Miniflare } from "miniflare";
import { unstable_getMiniflareWorkerOptions } from "wrangler";

const { config, bundleDir, persistTo, port, inspectorPort, bindings } = JSON.parse(process.env.BENCH_MINIFLARE);
const { workerOptions } = unstable_getMiniflareWorkerOptions(config);
const bundle = readdirSync(bundleDir).find((file) => file.endsWith(".js"));
const mf = new Miniflare({
  ...workerOptions,
  // The deployable bundle as one module (Remix's client loader has an import(variable) that module
  // auto-detection would refuse).
  modules: [{ type: "ESModule", path: path.join(bundleDir, bundle) }],
  modulesRoot: bundleDir,
  modulesRules: undefined,
  bindings: { ...workerOptions.bindings, ...bindings },
  host: "127.0.0.1",
  // No request for Cloudflare's `cf` object (no internet here): its placeholder, as wrangler dev falls back to.
  cf: false,
  port,
  ...(inspectorPort ? { inspectorPort } : {}),
  // wrangler's --persist-to layout, so the migrations `wrangler d1 migrations apply` wrote are found.
  d1Persist: path.join(persistTo, "v3", "d1"),
  r2Persist: path.join(persistTo, "v3", "r2"),
  // Uncaught errors are printed; request logs stay off (they would cost time under load).
  log: new Log(LogLevel[process.env.BENCH_MF_LOG || "ERROR"]),
});
const url = (await mf.ready).toString().replace(/\/$/, "");
console.log(JSON.stringify({ url, bundleFile: path.join(bundleDir, bundle) }));
for (const signal of ["SIGTERM", "SIGINT"]) {
  process.on(signal, async () => {
    await mf.dispose().catch(() => {});
    process.exit(0);
  });
}
