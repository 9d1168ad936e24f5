// What the outbox measurements (measure/drain.mjs, measure/backlog.mjs) share: a query against a
// server's local D1 through wrangler, and the webhook sink's control port.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { ROOT } from "./servers.mjs";

const WRANGLER = path.join(ROOT, "node_modules/wrangler/bin/wrangler.js");

/** One query against a server's local D1, through wrangler; its rows. Throws on failure. */
export function queryD1(server, sql) {
  const args = [
    WRANGLER,
    "d1",
    "execute",
    "DB",
    "--local",
    "--persist-to",
    server.persistTo,
    "--config",
    server.config,
    "--json",
    "--command",
    sql,
  ];
  const run = spawnSync(process.execPath, args, { cwd: ROOT, env: { ...process.env, CI: "true" }, encoding: "utf8", maxBuffer: 64 << 20 });
  if (run.status !== 0) throw new Error(`d1 execute failed: ${run.stderr}`);
  return JSON.parse(run.stdout)[0].results;
}

/** A call to the webhook sink's control port (mode, reset, state). */
export async function sinkControl(providers, method, pathname, body) {
  const res = await fetch(`${providers.sinkControlOrigin}${pathname}`, { method, body: body && JSON.stringify(body) });
  if (!res.ok) throw new Error(`sink ${pathname} answered ${res.status}`);
  return res.json();
}
