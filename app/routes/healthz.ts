import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { readDestinationAttention } from "~/lib/storage/destination-attention.server";
import { pingDatabase } from "~/lib/storage/sql.server";

// Liveness plus a one-row D1 probe, so a monitor sees a broken database binding, not just a live
// Worker. A bad setting makes the site "degraded" too: it still serves, on a safe default, but an
// operator must fix it. So do deliveries held on a setting the site cannot see itself (the drain
// Worker's send_email binding) and destinations that no longer exist. Only the variables' names and
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
  const settings = [...new Set(context.settings.problems.map((problem) => problem.variable))];
  const status = db === "ok" && settings.length === 0 && destinations.length === 0 ? "ok" : "degraded";
  return Response.json(
    { status, db, ...(settings.length > 0 ? { settings } : {}), ...(destinations.length > 0 ? { destinations } : {}) },
    { status: db === "ok" ? 200 : 503, headers: { "cache-control": "no-store" } },
  );
}
