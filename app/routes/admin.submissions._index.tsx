import { json, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/cloudflare";
import { Form, Link, useActionData, useLoaderData, useRouteLoaderData, useSearchParams } from "@remix-run/react";
import { StateBadge } from "~/components/admin/state-badge";
import { formCatalog } from "~/lib/forms/live.server";
import { requireAdminAction, requireUser } from "~/lib/auth/admin-user.server";
import { refusal } from "~/lib/http/responses.server";
import { markTicked } from "~/lib/spam/console.server";
import { MarkTick, MarkToolbar } from "~/components/admin/mark-toolbar";
import type { loader as layoutLoader } from "~/routes/admin";
import { adminHeaders, adminMeta, formatUtc } from "~/lib/console/page";
import { parseListFilters } from "~/lib/submissions/list-filters.server";
import { listSubmissionPage, type SubmissionPage } from "~/lib/storage/submission-list.server";
import { FILTER_STATES } from "~/lib/storage/submission-states";
import { ScrollTable } from "~/components/admin/scroll-table";
import { countOf } from "~/lib/text/count";
import { consoleRoute } from "~/lib/console/route.server";
import { filesOf } from "~/lib/storage/file-objects.server";
import { ERRORS } from "~/lib/http/errors";
import { showFieldValue } from "~/lib/forms/show-value";

export const headers = adminHeaders;
export const meta: MetaFunction = () => adminMeta("Submissions", "Find submissions by form, state, date or text.");

const NO_PAGE: SubmissionPage = { items: [], next: null, prev: null };

export const loader = consoleRoute(async ({ request, context }: LoaderFunctionArgs) => {
  await requireUser(request, context);
  const { filter, cursor, refused } = parseListFilters(new URL(request.url).searchParams);
  const [page, catalog] = await Promise.all([
    refused ? NO_PAGE : listSubmissionPage(context.cloudflare.env.DB, filter, cursor),
    formCatalog(context),
  ]);
  const data = {
    problem: refused ? ERRORS[refused].message : null,
    filters: filter,
    next: page.next,
    prev: page.prev,
    unsearched: page.unsearched ?? false,
    forms: [...catalog.forms.keys()],
    titles: Object.fromEntries([...catalog.forms].map(([id, live]) => [id, live.form.title])),
    items: page.items.map(({ submission: s, state }) => ({
      id: s.id,
      formId: s.formId,
      receivedAt: s.receivedAt,
      state,
      // A console "Send a test": listed like the rest, marked, and left out of the dashboard's counts.
      test: s.test,
      // A one-line preview, each value as the submission's page shows it; React escapes it like every other value.
      preview: Object.entries(s.fields)
        .map(([name, value]) => {
          const field = catalog.forms.get(s.formId)?.form.fields.find((f) => f.name === name);
          return showFieldValue(field, Array.isArray(value) ? filesOf(value) : value);
        })
        .join(" · ")
        .slice(0, 120),
    })),
  };
  return json(data, { status: refused ? ERRORS[refused].status : 200 });
});

/** Marks the ticked submissions as spam or not spam (docs/forms.md#spam), audited as one. */
export const action = consoleRoute(async ({ request, context }: ActionFunctionArgs) => {
  const user = await requireAdminAction(request, context);
  const { env, ctx } = context.cloudflare;
  const said = await markTicked({ env, ctx, user, request, publicUrl: context.settings.publicUrl, now: context.now });
  if (!said) throw refusal("admin_bad_request");
  return json(said, { status: said.ok ? 200 : 409 });
});

const STATE_LABELS: Record<string, string> = {
  delivered: "Delivered",
  pending: "Pending",
  dead: "Dead",
  quarantined: "Quarantined",
  stored: "Stored (no destination)",
};

export default function SubmissionList() {
  const { problem, filters, next, prev, unsearched, forms, titles, items } = useLoaderData<typeof loader>();
  const marked = useActionData<typeof action>();
  const canMark = useRouteLoaderData<typeof layoutLoader>("routes/admin")?.user.role === "admin";
  const [params] = useSearchParams();
  const pageLink = (cursor: string) => {
    const linked = new URLSearchParams(params);
    linked.set("cursor", cursor);
    return `?${linked.toString()}`;
  };
  const formTitle = (id: string) => titles[id] ?? id;
  const filtered = Boolean(filters.form || filters.status || filters.from || filters.to || filters.q);
  return (
    <>
      <h1>Submissions</h1>
      {params.get("deleted") ? (
        <p className="notice ok" role="status">
          The submission was deleted.
        </p>
      ) : null}
      <Form method="get" className="filters" role="search" aria-label="Filter submissions">
        <label>
          Form
          <select name="form" defaultValue={filters.form ?? ""}>
            <option value="">All forms</option>
            {forms.map((f) => (
              <option key={f} value={f}>
                {formTitle(f)}
              </option>
            ))}
          </select>
        </label>
        <label>
          Status
          <select name="status" defaultValue={filters.status ?? ""}>
            <option value="">Any</option>
            {FILTER_STATES.map((s) => (
              <option key={s} value={s}>
                {STATE_LABELS[s] ?? s}
              </option>
            ))}
          </select>
        </label>
        <label>
          From
          <input type="date" name="from" defaultValue={filters.from ?? ""} />
        </label>
        <label>
          To
          <input type="date" name="to" defaultValue={filters.to ?? ""} />
        </label>
        <label className="wide">
          Search
          <input type="search" name="q" defaultValue={filters.q ?? ""} />
        </label>
        <button type="submit">Filter</button>
      </Form>
      {problem ? (
        <p className="notice error" role="alert">
          {problem}
        </p>
      ) : null}
      <p>
        {filters.q ? "Matches newest first, by arrival" : "Newest first"}; {countOf(items.length, "submission", "submissions")} on this
        page.
      </p>
      {unsearched ? (
        <p className="notice" role="status">
          Some of the newest submissions are not in the search index yet, so this search left them out. The index takes them in within a few
          minutes.
        </p>
      ) : null}
      {items.length === 0 ? (
        <div className="empty">
          <strong>{filtered ? "No submission matches these filters" : "No submissions yet"}</strong>
          <p>
            {filtered ? (
              <Link to="/admin/submissions">Clear the filters</Link>
            ) : (
              "Every accepted submission appears here, newest first, with its delivery status."
            )}
          </p>
        </div>
      ) : (
        <>
          {canMark ? <MarkToolbar result={marked} /> : null}
          <ScrollTable label="Submissions, newest first">
            <thead>
              <tr>
                {canMark ? <th scope="col">Tick</th> : null}
                <th scope="col">Received</th>
                <th scope="col">Form</th>
                <th scope="col">Status</th>
                <th scope="col">Content</th>
              </tr>
            </thead>
            <tbody>
              {items.map((item) => (
                <tr key={item.id}>
                  {canMark ? <MarkTick id={item.id} /> : null}
                  <td className="nowrap" data-label="Received">
                    <Link to={`/admin/submissions/${item.id}`} aria-label={`Open submission ${item.id}`}>
                      {formatUtc(item.receivedAt)}
                    </Link>
                  </td>
                  <td data-label="Form">
                    {formTitle(item.formId)}
                    {item.test ? (
                      <>
                        {" "}
                        <span className="badge badge-test">Test</span>
                      </>
                    ) : null}
                  </td>
                  <td data-label="Status">
                    <StateBadge state={item.state} />
                  </td>
                  <td className="lead-cell">{item.preview}</td>
                </tr>
              ))}
            </tbody>
          </ScrollTable>
        </>
      )}
      {prev || next ? (
        <nav className="pager" aria-label="Pages">
          {prev ? (
            <Link to={pageLink(prev)} rel="prev">
              Newer submissions
            </Link>
          ) : null}
          {next ? (
            <Link to={pageLink(next)} rel="next">
              Older submissions
            </Link>
          ) : null}
        </nav>
      ) : null}
      <h2>Export</h2>
      <Form method="get" action="/admin/export" reloadDocument className="filters" aria-label="Export submissions">
        <label>
          Form
          <select name="form" defaultValue={filters.form ?? ""}>
            <option value="">All forms</option>
            {forms.map((f) => (
              <option key={f} value={f}>
                {formTitle(f)}
              </option>
            ))}
          </select>
        </label>
        <label>
          From
          <input type="date" name="from" defaultValue={filters.from ?? ""} />
        </label>
        <label>
          To
          <input type="date" name="to" defaultValue={filters.to ?? ""} />
        </label>
        <label>
          Format
          <select name="format" defaultValue="csv">
            <option value="csv">CSV</option>
            <option value="json">JSON</option>
          </select>
        </label>
        <button type="submit">Download export</button>
      </Form>
    </>
  );
}
