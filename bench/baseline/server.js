// The Worker of the bare app: Remix's Cloudflare Workers template entry (its server.ts), unchanged in
// substance. The client build is served as static assets before this runs ([assets] in wrangler.toml);
// every other request goes to Remix with the template's load context. bench/build-baseline.mjs copies
// this file next to each build, where ./build/server exists.
import { createRequestHandler } from "@remix-run/cloudflare";
import * as build from "./build/server/index.js";

const handleRemixRequest = createRequestHandler(build);

export default {
  async fetch(request, env, ctx) {
    try {
      return await handleRemixRequest(request, { cloudflare: { cf: request.cf, ctx, caches, env } });
    } catch (error) {
      console.log(error);
      return new Response("An unexpected error occurred", { status: 500 });
    }
  },
};
