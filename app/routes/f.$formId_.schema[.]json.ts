import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { findForm } from "~/lib/forms/live.server";
import { formJsonSchema } from "~/lib/forms/json-schema";
import { problemJson } from "~/lib/http/responses.server";

// GET /f/:formId/schema.json — the published version of a form as JSON Schema 2020-12, for receivers
// to check `submission.fields` with a kept validator (docs/webhooks.md). Public, like the form itself,
// and served from the isolate's form catalog (no D1 round trip when warm). An archived form's schema
// is still served: its stored submissions are still delivered.
export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const found = await findForm(context, params.formId);
  if (!found.ok) return problemJson(found.code);
  const { form, version } = found.live;
  const schema = formJsonSchema(form, version, new URL(request.url).origin);
  return new Response(JSON.stringify(schema, null, 2), {
    headers: {
      "Content-Type": "application/schema+json; charset=utf-8",
      // A publish reaches every isolate within the catalog's bound; a minute's caching adds at most that.
      "Cache-Control": "public, max-age=60",
      "Access-Control-Allow-Origin": "*",
      "X-Content-Type-Options": "nosniff",
    },
  });
}
