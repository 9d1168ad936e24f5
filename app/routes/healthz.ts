import type { LoaderFunctionArgs } from "@remix-run/cloudflare";

// Liveness plus a one-row D1 probe, so a monitor sees a broken database binding, not just a live
// Worker. A bad setting makes the site "degraded" too: it still serves, on a safe default, but an
// operator must fix it. Only the variables' names are shown, never their values.
export async function loader({ context }: LoaderFunctionArgs) {
  let db: "ok" | "unavailable" = "ok";
  try {
    await context.cloudflare.env.DB.prepare("SELECT 1").first();
  } catch {
    db = "unavailable";
  }
  const settings = [...new Set(context.settings.problems.map((problem) => problem.variable))];
  const status = db === "ok" && settings.length === 0 ? "ok" : "degraded";
  return Response.json(
    { status, db, ...(settings.length > 0 ? { settings } : {}) },
    { status: db === "ok" ? 200 : 503, headers: { "cache-control": "no-store" } },
  );
}
