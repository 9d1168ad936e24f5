import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { requireUser } from "~/lib/admin/auth.server";
import { adminHeaders, adminMeta, formatUtc } from "~/lib/admin/http";
import { listAudit } from "~/lib/admin/audit.server";

export const headers = adminHeaders;
export const meta: MetaFunction = () => adminMeta("Audit log", "Who did what in the operator console, and when.");

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireUser(request, context);
  return { entries: await listAudit(context.cloudflare.env.DB, 200) };
}

export default function AuditLog() {
  const { entries } = useLoaderData<typeof loader>();
  return (
    <>
      <h1>Audit log</h1>
      <p>The latest 200 entries, newest first.</p>
      <table>
        <caption className="visually-hidden">Audit log entries</caption>
        <thead>
          <tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">Action</th><th scope="col">Target</th><th scope="col">Detail</th><th scope="col">IP</th></tr>
        </thead>
        <tbody>
          {entries.map((e) => (
            <tr key={e.id}>
              <td>{formatUtc(e.at)}</td>
              <td>{e.actor} ({e.role})</td>
              <td>{e.action}</td>
              <td>{e.target ?? "—"}</td>
              <td><code>{e.detail ?? ""}</code></td>
              <td>{e.ip ?? "—"}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
