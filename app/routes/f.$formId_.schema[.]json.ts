import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { checkFormShape } from "~/lib/forms/check";
import { findForm } from "~/lib/forms/live.server";
import { formJsonSchemaText } from "~/lib/forms/json-schema";
import { problemJson } from "~/lib/http/responses.server";
import { getVersion } from "~/lib/storage/forms.server";

// GET /f/:formId/schema.json: the published version as JSON Schema, from the isolate's catalog; `?version=N` names
// a console form's kept version (one D1 read, cached long: a version never changes).
export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const found = await findForm(context, params.formId);
  if (!found.ok) return problemJson(found.code);
  const { form, version, source } = found.live;
  const asked = new URL(request.url).searchParams.get("version");
  const origin = new URL(request.url).origin;
  if (asked !== null && asked !== version) {
    const kept =
      source === "console" && /^[1-9]\d{0,8}$/.test(asked) ? await getVersion(context.cloudflare.env.DB, form.id, Number(asked)) : null;
    const shape = kept ? checkFormShape(parseJson(kept.definition)) : null;
    if (!shape?.ok) return problemJson("not_found");
    return schemaResponse(formJsonSchemaText(shape.form, asked, origin), "public, max-age=86400, immutable");
  }
  // A publish reaches every isolate within the catalog's bound; a minute's caching adds at most that.
  return schemaResponse(formJsonSchemaText(form, version, origin), "public, max-age=60");
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function schemaResponse(schema: string, cacheControl: string): Response {
  return new Response(schema, {
    headers: {
      "Content-Type": "application/schema+json; charset=utf-8",
      "Cache-Control": cacheControl,
      "Access-Control-Allow-Origin": "*",
      "X-Content-Type-Options": "nosniff",
    },
  });
}
