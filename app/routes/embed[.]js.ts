import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { embedScript } from "~/lib/embed/script";

// GET /embed.js — the script of the one-line embed. Any site may load it; a form's page it frames
// allows only that form's embed origins to frame it (frame-ancestors), so loading it grants nothing.
export function loader({ request, context }: LoaderFunctionArgs) {
  const origin = context.settings.publicUrl ?? new URL(request.url).origin;
  return new Response(embedScript(origin), {
    headers: {
      "content-type": "text/javascript; charset=utf-8",
      "cache-control": "public, max-age=300",
      "x-content-type-options": "nosniff",
      "cross-origin-resource-policy": "cross-origin",
    },
  });
}
