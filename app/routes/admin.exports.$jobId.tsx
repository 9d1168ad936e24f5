import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { useLoaderData, useRevalidator, useSearchParams } from "@remix-run/react";
import { useEffect, useRef } from "react";
import { ExportProgressView } from "~/components/admin/export-progress";
import { requireUser } from "~/lib/auth/admin-user.server";
import { exportDataPath, exportProgress, findOwnExport } from "~/lib/exports/console.server";
import { adminHeaders, adminMeta } from "~/lib/console/page";
import { consoleRoute } from "~/lib/console/route.server";
import { refusal } from "~/lib/http/responses.server";

// /admin/exports/:jobId — an export job's page in the console (docs/decisions/109). It only reads the
// job (the export queue and the cron carry it on). With script it asks again every few seconds without
// reloading; without, it reloads itself (a refresh inside <noscript>). `?auto=1` (where the export
// button lands) starts the download once the file is ready.
export const headers = adminHeaders;
export const meta: MetaFunction = () => adminMeta("Preparing your export", "An export of submissions, and its progress.");

const POLL_MS = 2000;

export const loader = consoleRoute(async ({ request, params, context }: LoaderFunctionArgs) => {
  const user = await requireUser(request, context);
  const job = await findOwnExport(context.cloudflare.env.DB, user, params.jobId);
  if (!job) throw refusal("not_found");
  return { progress: exportProgress(job, context.now()), fileHref: exportDataPath(job) };
});

export default function ExportPage() {
  const { progress, fileHref } = useLoaderData<typeof loader>();
  const [search] = useSearchParams();
  const auto = search.get("auto") === "1";
  const ready = progress.phase === "ready";
  const revalidator = useRevalidator();
  const started = useRef(false);
  useEffect(() => {
    if (ready) return;
    const timer = setInterval(() => revalidator.state === "idle" && revalidator.revalidate(), POLL_MS);
    return () => clearInterval(timer);
  }, [ready, revalidator]);
  useEffect(() => {
    if (!ready || !auto || started.current) return;
    started.current = true;
    window.location.assign(fileHref);
  }, [ready, auto, fileHref]);
  const self = `/admin/exports/${progress.id}${auto ? "?auto=1" : ""}`;
  return (
    <>
      {ready ? (
        auto ? (
          <noscript>
            <meta httpEquiv="refresh" content={`0;url=${fileHref}`} />
          </noscript>
        ) : null
      ) : (
        <noscript>
          <meta httpEquiv="refresh" content={`${POLL_MS / 1000};url=${self}`} />
        </noscript>
      )}
      <ExportProgressView progress={progress} fileHref={fileHref} />
    </>
  );
}
