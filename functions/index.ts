import { handleFetch } from "./fetch";
import { handleScheduled } from "./scheduled";

// Gatepost's one Worker (ADR 030): static assets are answered before it runs ([assets] in wrangler.toml);
// every other request goes to fetch, and the cron to scheduled.
export default { fetch: handleFetch, scheduled: handleScheduled } satisfies ExportedHandler<Env>;
