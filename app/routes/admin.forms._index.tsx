import { z } from "zod";
import { json, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/cloudflare";
import { Form, Link, useActionData, useLoaderData, useRouteLoaderData } from "@remix-run/react";
import { ScrollTable } from "~/components/admin/scroll-table";
import { requireAdminAction, requireUser } from "~/lib/auth/admin-user.server";
import { starterDefinition } from "~/lib/form-editor/editor-post.server";
import { createForm, listForms } from "~/lib/form-editor/lifecycle.server";
import { consoleRoute } from "~/lib/console/route.server";
import { adminHeaders, adminMeta } from "~/lib/console/page";
import { readAdminForm } from "~/lib/console/input.server";
import { formCatalog } from "~/lib/forms/live.server";
import { ERRORS } from "~/lib/http/errors";
import type { loader as layoutLoader } from "~/routes/admin";
import { orEmptyMark } from "~/lib/text/empty-value";

// Every form: the files' (code, read-only here) and the console's, with their state and version; an
// admin creates a console form here, from a starter or from a form file's JSON (import).

export const headers = adminHeaders;
export const meta: MetaFunction = () => adminMeta("Forms", "Every form, its version and state; create or import a form.");

export const loader = consoleRoute(async ({ request, context }: LoaderFunctionArgs) => {
  await requireUser(request, context);
  return { forms: await listForms(context.cloudflare.env.DB, await formCatalog(context)) };
});

const CreateSchema = z.discriminatedUnion("intent", [
  z.object({ intent: z.literal("create"), id: z.string().max(100), title: z.string().max(200) }),
  // The import's JSON is bounded by readAdminForm's body limit.
  z.object({ intent: z.literal("import"), definition: z.string() }),
]);

export const action = consoleRoute(async ({ request, context }: ActionFunctionArgs) => {
  const user = await requireAdminAction(request, context);
  const post = await readAdminForm(request, CreateSchema, 64 * 1024);
  let value: unknown;
  if (post.intent === "create") {
    value = starterDefinition(post.id.trim(), post.title.trim() || post.id.trim());
  } else {
    try {
      value = JSON.parse(post.definition);
    } catch {
      return json(
        { intent: post.intent, message: "That is not JSON: paste the definition of a form file, as exported.", problems: [] },
        { status: 400 },
      );
    }
  }
  const created = await createForm({ db: context.cloudflare.env.DB, settings: context.settings, user, request, nowMs: Date.now() }, value);
  if (!created.ok)
    return json(
      { intent: post.intent, message: ERRORS[created.code].message, problems: created.problems ?? [] },
      { status: ERRORS[created.code].status },
    );
  throw redirect(`/admin/forms/${created.id}`, 303);
});

const STATUS: Record<string, string> = { draft: "Draft", published: "Published", archived: "Archived" };

export default function Forms() {
  const { forms } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const role = useRouteLoaderData<typeof layoutLoader>("routes/admin")?.user.role;
  return (
    <>
      <h1>Forms</h1>
      <p>
        Forms in app/forms/ are code: change them in their file. Forms made here are kept in the database, published as versions, and served
        exactly like forms in code.
      </p>
      <ScrollTable label="Forms">
        <thead>
          <tr>
            <th scope="col">Form</th>
            <th scope="col">Source</th>
            <th scope="col">State</th>
            <th scope="col">Version</th>
          </tr>
        </thead>
        <tbody>
          {forms.map((f) => (
            <tr key={f.id}>
              <th scope="row">
                <Link to={`/admin/forms/${f.id}`}>{f.title}</Link> <span className="small">{f.id}</span>
              </th>
              <td data-label="Source">{f.source === "code" ? "Code" : "Console"}</td>
              <td data-label="State">
                {f.shadowed ? "Not served: the form file with this id wins" : STATUS[f.status]}
                {f.hasDraft ? ", draft pending" : ""}
              </td>
              <td data-label="Version">{orEmptyMark(f.version)}</td>
            </tr>
          ))}
        </tbody>
      </ScrollTable>
      {role === "admin" ? (
        <>
          <h2 id="create-title">New form</h2>
          {result ? (
            <div className="notice error" role="alert">
              <p>{result.message}</p>
              {result.problems.length > 0 ? (
                <ul>
                  {result.problems.map((p) => (
                    <li key={p}>{p}</li>
                  ))}
                </ul>
              ) : null}
            </div>
          ) : null}
          <Form method="post" className="filters" aria-labelledby="create-title">
            <input type="hidden" name="intent" value="create" />
            <label>
              Form id
              <input
                name="id"
                required
                pattern="[a-z][a-z0-9\-]{0,31}"
                maxLength={32}
                aria-describedby="id-hint"
                autoCapitalize="off"
                spellCheck={false}
              />
            </label>
            <label className="wide">
              Title
              <input name="title" required maxLength={120} />
            </label>
            <button type="submit">Create a draft</button>
          </Form>
          <p className="small" id="id-hint">
            The id is the form's address, /f/&lt;id&gt;: lower-case letters, digits and dashes, at most 32. It cannot change later.
          </p>
          <details>
            <summary>Import a form file's JSON…</summary>
            <Form method="post">
              <input type="hidden" name="intent" value="import" />
              <div className="field">
                <label htmlFor="import-definition">Definition (JSON)</label>
                <span className="hint" id="import-hint">
                  A form file's definition as JSON, e.g. from “Export as JSON”. It becomes a draft; publish it when it looks right.
                </span>
                <textarea
                  id="import-definition"
                  name="definition"
                  className="control"
                  rows={8}
                  required
                  aria-describedby="import-hint"
                  spellCheck={false}
                />
              </div>
              <button type="submit">Import as a draft</button>
            </Form>
          </details>
        </>
      ) : null}
    </>
  );
}
