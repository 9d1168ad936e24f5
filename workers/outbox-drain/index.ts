import { runMaintenance } from "./maintenance";

// Gatepost's scheduled companion Worker (cron: every minute). It shares the Pages app's D1 database and
// runs the maintenance jobs in ./maintenance.ts: drain the webhook outbox, prune rate-limit windows.
export default {
  async scheduled(_controller, env, ctx) {
    ctx.waitUntil(
      runMaintenance(env).then((results) => console.log(JSON.stringify({ maintenance: results }))),
    );
  },
} satisfies ExportedHandler<Env>;
