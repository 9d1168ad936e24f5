import type { LoaderFunctionArgs } from "@remix-run/cloudflare";

// Liveness plus a one-row D1 probe, so a monitor sees a broken database binding, not just a live Worker.
export async function loader({ context }: LoaderFunctionArgs) {
  let db: "ok" | "unavailable" = "ok";
  try {
    await context.cloudflare.env.DB.prepare("SELECT 1").first();
  } catch {
    db = "unavailable";
  }
  return Response.json(
    { status: db === "ok" ? "ok" : "degraded", db },
    { status: db === "ok" ? 200 : 503, headers: { "cache-control": "no-store" } },
  );
}
