import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { problemJson } from "~/lib/http/responses.server";
import { answerVerifyCall } from "~/lib/turnstile/verify-api.server";

// POST /api/turnstile/verify — token checks for other backends (docs/api.md).
export function loader() {
  return problemJson("method_not_allowed", new Headers({ Allow: "POST" }));
}

export function action({ request, context }: ActionFunctionArgs) {
  if (request.method !== "POST") return problemJson("method_not_allowed", new Headers({ Allow: "POST" }));
  return answerVerifyCall(request, context.cloudflare.env.DB, context.settings.turnstile, context.now);
}
