import { handleFetch } from "./fetch";
import { handleQueue } from "./queue";
import { handleScheduled } from "./scheduled";

// Gatepost's one Worker (ADR 030): static assets are answered before it runs ([assets] in wrangler.toml).
export default { fetch: handleFetch, scheduled: handleScheduled, queue: handleQueue } satisfies ExportedHandler<Env>;
