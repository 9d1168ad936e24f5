import { createRequestHandler } from "@remix-run/cloudflare";
import { EmailMessage } from "cloudflare:email";
import { refuseCrossSitePagePost, unexpectedErrorResponse } from "../app/lib/http/responses.server";
import { refuseCostlyManifestRequest } from "../app/lib/http/route-discovery.server";
import { withDrainableBody } from "../app/lib/http/unread-body.server";
import { settingsOf } from "../app/lib/settings/settings.server";
import { createLoadContext } from "../load-context";
import { serverBuild } from "./server-build";

const handleRemix = createRequestHandler(serverBuild);

// `now` is the clock the app reads; the Worker runtime never passes one, tests do.
export async function handleFetch(request: Request, env: Env, ctx: ExecutionContext, now: () => number = Date.now): Promise<Response> {
  if (!settingsOf(env).drainUnreadBodies) return answer(request, env, ctx, now);
  const drainable = withDrainableBody(request);
  const response = await answer(drainable.request, env, ctx, now);
  await drainable.drain();
  return response;
}

// The guards answer before Remix's CSRF check (a 500) and route discovery (a second of CPU) would (ADR 055).
async function answer(request: Request, env: Env, ctx: ExecutionContext, now: () => number): Promise<Response> {
  const refused = refuseCostlyManifestRequest(request) ?? refuseCrossSitePagePost(request);
  if (refused) return refused;
  try {
    return await handleRemix(request, createLoadContext({ env, ctx, cf: request.cf, caches }, EmailMessage, now));
  } catch (error) {
    // Logged, never shown: a visitor gets the catalogue's generic answer.
    console.error(error);
    return unexpectedErrorResponse(request);
  }
}
