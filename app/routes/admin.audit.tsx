import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { AuditSentence } from "~/components/admin/audit-sentence";
import { requireUser } from "~/lib/auth/admin-user.server";
import { adminHeaders, adminMeta, formatUtc } from "~/lib/console/page";
import { listAudit } from "~/lib/storage/audit-log.server";
import { ScrollTable } from "~/components/admin/scroll-table";
import { consoleRoute } from "~/lib/console/route.server";
import { orEmptyMark } from "~/lib/text/empty-value";

export const headers = adminHeaders;
export const meta: MetaFunction = () => adminMeta("Audit log", "Who did what in the operator console, and when.");

export const loader = consoleRoute(async ({ request, context }: LoaderFunctionArgs) => {
  await requireUser(request, context);
  return { entries: await listAudit(context.cloudflare.env.DB, 200) };
});

/** "password:admin" is the shared admin password; Access users are shown by e-mail. */
function actorName(actor: string, role: string): string {
  return actor.startsWith("password:") ? `${role} (password)` : actor;
}

export default function AuditLog() {
  const { entries } = useLoaderData<typeof loader>();
  return (
    <>
      <h1>Audit log</h1>
      <p>Who did what in the console, newest first (the latest 200 entries).</p>
      {entries.length === 0 ? (
        <div className="empty">
          <strong>Nothing recorded yet</strong>
          <p>Sign-ins, redeliveries, exports and erasures appear here as they happen.</p>
        </div>
      ) : (
        <ScrollTable label="Audit log entries">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Who</th>
              <th scope="col">What happened</th>
              <th scope="col">IP</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((e) => (
              <tr key={e.id}>
                <td className="nowrap" data-label="When">
                  {formatUtc(e.at)}
                </td>
                <td data-label="Who">{actorName(e.actor, e.role)}</td>
                <td className="lead-cell">
                  <AuditSentence action={e.action} target={e.target} detail={e.detail} />
                </td>
                <td className="nowrap" data-label="IP">
                  {orEmptyMark(e.ip)}
                </td>
              </tr>
            ))}
          </tbody>
        </ScrollTable>
      )}
    </>
  );
}
