import { handleFetch } from "./fetch";
import { handleQueue } from "./queue";
import { handleScheduled } from "./scheduled";

// Gatepost's one Worker (ADR 030): static assets are answered before it runs ([assets] in wrangler.toml);
// every other request goes to fetch, the cron to scheduled, and the delivery queue (when bound) to queue.
export default { fetch: handleFetch, scheduled: handleScheduled, queue: handleQueue } satisfies ExportedHandler<Env>;
