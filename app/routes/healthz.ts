import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { readDestinationAttention } from "~/lib/storage/destination-attention.server";
import { pingDatabase } from "~/lib/storage/sql.server";
import { FORMS } from "~/lib/forms/registry";
import { uploadProblems } from "~/lib/uploads/attention.server";

// Liveness plus a one-row D1 probe, so a monitor sees a broken database binding, not just a live
// Worker. A bad setting makes the site "degraded" too: it still serves, on a safe default, but an
// operator must fix it. So do deliveries held on a setting the site cannot see itself (the drain
// Worker's send_email binding) and destinations that no longer exist, and a form that takes files on
// a Worker without its R2 binding (`uploads: "missing"`) or link secret. Only the variables' names and
// the destinations' kinds are shown, never values or reasons.
export async function loader({ context }: LoaderFunctionArgs) {
  let db: "ok" | "unavailable" = "ok";
  let destinations: string[] = [];
  try {
    const dbBinding = context.cloudflare.env.DB;
    await pingDatabase(dbBinding);
    destinations = (await readDestinationAttention(dbBinding)).map(
      (d) => `${d.formId}/${d.destination}: ${[d.held > 0 ? "held" : "", d.gone > 0 ? "gone" : ""].filter(Boolean).join(", ")}`,
    );
  } catch {
    db = "unavailable";
  }
  const upload = uploadProblems(context.cloudflare.env, context.settings, FORMS);
  const uploads = upload.some((problem) => problem.variable === "UPLOADS") ? "missing" : "ok";
  const settings = [
    ...new Set([...context.settings.problems, ...upload.filter((p) => p.variable !== "UPLOADS")].map((problem) => problem.variable)),
  ];
  const healthy = db === "ok" && uploads === "ok" && settings.length === 0 && destinations.length === 0;
  return Response.json(
    {
      status: healthy ? "ok" : "degraded",
      db,
      ...(uploads === "missing" ? { uploads } : {}),
      ...(settings.length > 0 ? { settings } : {}),
      ...(destinations.length > 0 ? { destinations } : {}),
    },
    { status: db === "ok" ? 200 : 503, headers: { "cache-control": "no-store" } },
  );
}
