import { parseSettings, type Settings } from "./app/lib/settings/settings.server";

// The common subset of what wrangler's getPlatformProxy (vite dev) and @remix-run/cloudflare-pages
// (wrangler pages dev / production) put on context.cloudflare. PlatformProxy's stricter type fails
// tsc on functions/[[path]].ts (ExecutionContext.props), so the shape is spelled out here.
export type Cloudflare = {
  env: Env;
  cf?: unknown;
  ctx: { waitUntil(promise: Promise<unknown>): void; passThroughOnException(): void };
  caches?: unknown;
};

declare module "@remix-run/cloudflare" {
  interface AppLoadContext {
    cloudflare: Cloudflare;
    /** Every setting, parsed once for this request (app/lib/settings/settings.server.ts). */
    settings: Settings;
  }
}

export const getLoadContext = ({ context }: { request: Request; context: { cloudflare: Cloudflare } }) => ({
  ...context,
  settings: parseSettings(context.cloudflare.env),
});
