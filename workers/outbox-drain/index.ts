import { EmailMessage } from "cloudflare:email";
import { runMaintenance, type DrainEnv } from "./maintenance";

// Gatepost's scheduled companion Worker (cron: every minute). It shares the Pages app's D1 database and
// runs the maintenance jobs in ./maintenance.ts: drain the outbox (webhooks, Slack, Discord and, since
// only a Worker can hold the send_email binding, every e-mail: ADR 016), prune limit windows, apply
// retention.
export default {
  // Awaited rather than handed to waitUntil, so a run ends when its jobs end and a caller that
  // triggers runs back to back (wrangler dev --test-scheduled, the benchmark) never stacks them up.
  async scheduled(_controller, env) {
    const results = await runMaintenance(env, undefined, Date.now(), { EmailMessage });
    console.log(JSON.stringify({ maintenance: results }));
  },
} satisfies ExportedHandler<DrainEnv>;
