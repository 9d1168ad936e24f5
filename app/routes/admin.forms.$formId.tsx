import { json, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/cloudflare";
import { Form, Link, useActionData, useLoaderData, useNavigation, useRouteLoaderData, useSearchParams } from "@remix-run/react";
import { FormEditorFields } from "~/components/admin/form-editor";
import { SpamRules } from "~/components/admin/spam-rules";
import { renderToStaticMarkup } from "react-dom/server";
import { FormField } from "~/components/form-field";
import { en } from "~/lib/i18n/messages/en";
import { checkFormDef, suggestionsFor } from "~/lib/forms/check";
import type { FormDef } from "~/forms/schema";
import { requireAdminAction, requireUser } from "~/lib/admin/auth.server";
import { applyFieldEdit, kindTextsViews, readEditorPost } from "~/lib/admin/form-editor.server";
import { discardDraft, listForms, loadConsoleForm, publishDraft, saveDraft, setArchived, type FieldInUse } from "~/lib/admin/forms.server";
import { consoleRoute } from "~/lib/admin/console-route.server";
import { adminHeaders, adminMeta, formatUtc } from "~/lib/admin/http";
import { formIdParam } from "~/lib/admin/input.server";
import { describeChanges } from "~/lib/forms/changes";
import { formCatalog } from "~/lib/forms/live.server";
import { ERRORS } from "~/lib/http/errors";
import { refusal } from "~/lib/http/responses.server";
import type { loader as layoutLoader } from "~/routes/admin";

// One form in the console: a form file is shown as code (read-only); a console form gets the editor,
// its preview with the real form components, its versions, publish and archive. Viewers read.

export const headers = adminHeaders;
export const meta: MetaFunction<typeof loader> = ({ data }) =>
  adminMeta(data ? `Form ${data.id}` : "Form", "Edit a form, preview it and publish it as a new version.");

export const loader = consoleRoute(async ({ request, params, context }: LoaderFunctionArgs) => {
  await requireUser(request, context);
  const id = formIdParam(params.formId);
  const db = context.cloudflare.env.DB;
  const catalog = await formCatalog(context);
  const live = catalog.forms.get(id);
  if (live?.source === "code") {
    return {
      id,
      source: "code" as const,
      // A console form made with this id (before the file, or imported) is never served: say so.
      shadowed: (await loadConsoleForm(db, id)) !== null,
      definition: live.form,
      version: live.version,
      draft: null,
      published: null,
      summary: null,
      problems: [],
      suggestions: [],
      changes: [],
      revision: "code",
      preview: null,
      kindTexts: [],
    };
  }
  const state = await loadConsoleForm(db, id);
  if (!state) throw refusal("form_not_found");
  const summary = (await listForms(db, catalog)).find((f) => f.id === id) ?? null;
  const draft = state.draft ?? state.published;
  const check = draft ? checkFormDef(draft, { allowLoopbackHttp: context.settings.allowLoopbackHttp }) : null;
  return {
    id,
    source: "console" as const,
    shadowed: false,
    definition: draft,
    version: state.row.published_version === null ? null : String(state.row.published_version),
    draft: state.draft,
    published: state.published,
    summary,
    problems: check && !check.ok ? check.problems : [],
    suggestions: draft ? suggestionsFor(draft) : [],
    // Only a form that was published has a version to compare with.
    changes: state.draft && state.published ? describeChanges(state.published, state.draft) : [],
    revision: String(state.row.updated_at),
    preview: draft && check?.ok ? previewMarkup(draft) : null,
    // The kinds' own texts' words come with the data: the registry stays on the server.
    kindTexts: kindTextsViews(),
  };
});

/**
 * The draft as the form's own components render it, made here so the editor's page ships none of
 * their code (the JS budget, docs/performance.md): a preview sends nothing and needs no script. React
 * escapes every text, as it does on the form's page.
 */
function previewMarkup(draft: FormDef): string {
  return renderToStaticMarkup(
    <>
      <h3>{draft.title}</h3>
      {draft.description ? <p className="lead">{draft.description}</p> : null}
      {draft.fields.map((field) => (
        <FormField key={field.name} field={{ ...field, name: `preview-${field.name}` }} value="" texts={{ lang: "en", page: en.page }} />
      ))}
    </>,
  );
}

interface EditorAnswer {
  ok: boolean;
  message: string;
  problems: string[];
  fieldsInUse: FieldInUse[];
  /** The field to focus after an add, move or remove. */
  focus: number | null;
  /** A draft that could not be saved, shown again as typed. */
  draft: FormDef | null;
}

function answer(body: EditorAnswer, status = 200) {
  return json(body, { status });
}

export const action = consoleRoute(async ({ request, params, context }: ActionFunctionArgs) => {
  const user = await requireAdminAction(request, context);
  const id = formIdParam(params.formId);
  const post = await readEditorPost(request, id);
  const ctx = { db: context.cloudflare.env.DB, settings: context.settings, user, request, nowMs: Date.now() };
  const { intent } = post;
  if (intent.kind === "archive" || intent.kind === "restore") {
    const result = await setArchived(ctx, id, intent.kind === "archive");
    return answer({
      ok: result.ok,
      message: result.ok
        ? intent.kind === "archive"
          ? "Archived: new submissions are refused."
          : "Restored: the form takes submissions again."
        : ERRORS[result.code].message,
      problems: [],
      fieldsInUse: [],
      focus: null,
      draft: null,
    });
  }
  if (intent.kind === "discard") {
    const result = await discardDraft(ctx, id);
    return answer({
      ok: result.ok,
      message: result.ok ? "The draft was discarded; the published version is unchanged." : ERRORS[result.code].message,
      problems: [],
      fieldsInUse: [],
      focus: null,
      draft: null,
    });
  }
  const edit = applyFieldEdit(post.draft, intent);
  const saved = await saveDraft(ctx, id, edit.draft);
  if (!saved.ok) {
    return answer(
      {
        ok: false,
        message: "The draft was not saved: fix the problems listed.",
        problems: saved.problems ?? [ERRORS[saved.code].message],
        fieldsInUse: [],
        focus: null,
        draft: edit.draft,
      },
      422,
    );
  }
  if (intent.kind === "publish") {
    const published = await publishDraft(ctx, id, { confirmFieldNames: post.confirmFieldNames });
    if (published.ok) throw redirect(`/admin/forms/${id}?published=${published.version}`, 303);
    return answer(
      {
        ok: false,
        message: ERRORS[published.code].message,
        problems: published.problems ?? [],
        fieldsInUse: published.fieldsInUse ?? [],
        focus: null,
        draft: null,
      },
      ERRORS[published.code].status,
    );
  }
  const moved = edit.focus !== null ? edit.draft.fields[edit.focus] : undefined;
  const message =
    intent.kind === "add"
      ? "Added a field at the end."
      : intent.kind === "remove"
        ? "Removed the field."
        : moved && (intent.kind === "up" || intent.kind === "down")
          ? `Moved “${moved.label || moved.name}” to position ${edit.focus! + 1}.`
          : "Draft saved. The live form is unchanged until you publish.";
  return answer({ ok: true, message, problems: saved.problems, fieldsInUse: [], focus: edit.focus, draft: null });
});

export default function FormPage() {
  const data = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const navigation = useNavigation();
  const role = useRouteLoaderData<typeof layoutLoader>("routes/admin")?.user.role;
  const [params] = useSearchParams();
  const published = params.get("published");
  const draft = result?.draft ?? data.definition;
  const problems = result?.problems?.length ? result.problems : data.problems;
  const canEdit = role === "admin" && data.source === "console";
  const busy = navigation.state !== "idle";
  return (
    <>
      <p className="small">
        <Link to="/admin/forms">All forms</Link>
      </p>
      <h1>{draft?.title ?? data.id}</h1>
      <p>
        <code>{data.id}</code>{" "}
        {data.source === "code"
          ? `· a form file (app/forms/), version ${data.version}`
          : data.summary?.status === "draft"
            ? "· a console form, not published yet"
            : `· a console form, version ${data.version}${data.summary?.status === "archived" ? ", archived" : ""}${data.draft ? ", with an unpublished draft" : ""}`}
      </p>
      <p className="links">
        {data.version !== null && data.summary?.status !== "archived" ? <a href={`/f/${data.id}`}>Open the form</a> : null}
        <Link to={`/admin/forms/${data.id}/destinations`}>Destinations</Link>
        <Link to={`/admin/forms/${data.id}/embed`}>Embed on your site</Link>
        {data.version !== null ? <a href={`/f/${data.id}/schema.json`}>JSON Schema</a> : null}
        <a href={`/admin/forms/${data.id}/export?format=ts`}>Export as a form file</a>
        <a href={`/admin/forms/${data.id}/export?format=json`}>Export as JSON</a>
      </p>
      <div role="status" aria-live="polite">
        {result?.message ? (
          <p className={result.ok ? "notice ok" : "notice error"}>{result.message}</p>
        ) : published ? (
          <p className="notice ok">{`Published as version ${published}.`}</p>
        ) : null}
      </div>
      {problems.length > 0 ? (
        <section className="summary" aria-labelledby="problems-title">
          <h2 id="problems-title">{`${problems.length} problem${problems.length === 1 ? "" : "s"} to fix before publishing`}</h2>
          <ul>
            {problems.map((problem) => (
              <li key={problem}>{problem}</li>
            ))}
          </ul>
        </section>
      ) : null}
      {data.suggestions.length > 0 ? (
        <section className="note" aria-labelledby="suggestions-title">
          <h2 id="suggestions-title">Suggestions</h2>
          <p>These are optional: the form can be published without them.</p>
          <ul>
            {data.suggestions.map((suggestion) => (
              <li key={suggestion}>{suggestion}</li>
            ))}
          </ul>
        </section>
      ) : null}
      {data.source === "code" ? (
        <>
          <p className="note">
            This form is defined in code. Change it in its file and deploy; its destinations can be set here. To make an editable copy,
            export it as JSON and import it as a new console form with another id.
          </p>
          {data.shadowed ? (
            <p className="notice error">
              A console form with the id <code>{data.id}</code> exists too. It is not served: the form file with the same id wins. Its
              submissions, if any, are kept; make it again under another id to use it.
            </p>
          ) : null}
          <h2 id="fields-title">Fields</h2>
          <FieldTable fields={data.definition.fields} />
          <SpamRules spam={data.definition.spam} />
        </>
      ) : draft ? (
        <Form method="post" className="editor" aria-label={`Edit ${draft.title}`}>
          <fieldset className="editor-all" disabled={!canEdit || busy}>
            <legend className="visually-hidden">Draft of {draft.title}</legend>
            <FormEditorFields
              draft={draft}
              revision={`${data.revision}:${result?.focus ?? ""}:${result ? "r" : ""}`}
              focus={result?.focus ?? null}
              kindTexts={data.kindTexts}
            />
            {result?.fieldsInUse?.length ? (
              <section className="notice error" aria-labelledby="names-title">
                <h2 id="names-title">Field names in use</h2>
                <p>
                  These fields hold data, or may in older submissions, and would be renamed or removed. Webhook receivers, exports and
                  scripts find values by field name, so they will stop seeing them:
                </p>
                <ul>
                  {result.fieldsInUse.map((f) => (
                    <li key={f.name}>{fieldUseText(f)}</li>
                  ))}
                </ul>
                <div className="field checkbox">
                  <label htmlFor="confirm-names">
                    <input id="confirm-names" type="checkbox" name="confirmFieldNames" value="yes" />
                    <span>I understand that receivers depend on field names; publish anyway</span>
                  </label>
                </div>
              </section>
            ) : null}
            {canEdit ? (
              <div className="actions">
                <button type="submit" name="intent" value="save">
                  Save draft
                </button>
                <button type="submit" name="intent" value="publish">
                  Publish
                </button>
                {data.draft && data.published ? (
                  <button type="submit" name="intent" value="discard" className="secondary">
                    Discard draft
                  </button>
                ) : null}
              </div>
            ) : null}
          </fieldset>
        </Form>
      ) : null}
      {data.changes.length > 0 ? (
        <section aria-labelledby="changes-title">
          <h2 id="changes-title">Changes since the published version</h2>
          <ul>
            {data.changes.map((change) => (
              <li key={change}>{change}</li>
            ))}
          </ul>
        </section>
      ) : null}
      {draft && data.preview !== null ? (
        <section aria-labelledby="preview-title" className="preview">
          <h2 id="preview-title">Preview</h2>
          <p className="small">The saved draft with the form's own components; nothing here is sent.</p>
          <div
            className="preview-frame"
            role="group"
            aria-label={`Preview of ${draft.title}`}
            dangerouslySetInnerHTML={{ __html: data.preview }}
          />
        </section>
      ) : null}
      {data.summary && data.summary.versions.length > 0 ? (
        <section aria-labelledby="versions-title">
          <h2 id="versions-title">Versions</h2>
          <ul>
            {data.summary.versions.map((v) => (
              <li key={v.version}>{`Version ${v.version}, published ${formatUtc(v.publishedAt)} by ${v.publishedBy}`}</li>
            ))}
          </ul>
        </section>
      ) : null}
      {canEdit && data.version !== null ? (
        <details>
          <summary>{data.summary?.status === "archived" ? "Restore this form…" : "Archive this form…"}</summary>
          <p>
            {data.summary?.status === "archived"
              ? "Restoring lets the form take submissions again."
              : "Archiving stops new submissions (they are refused with 410 Gone). Stored submissions are kept under the form's retention and still delivered."}
          </p>
          <Form method="post">
            <button type="submit" name="intent" value={data.summary?.status === "archived" ? "restore" : "archive"} className="danger">
              {data.summary?.status === "archived" ? "Restore" : "Archive"}
            </button>
          </Form>
        </details>
      ) : null}
    </>
  );
}

function FieldTable({ fields }: { fields: readonly { name: string; type: string; label: string; required?: boolean }[] }) {
  return (
    <div className="table-scroll">
      {/* Named by the "Fields" heading above it, so a screen reader does not hear "Fields" twice. */}
      <table className="cards" aria-labelledby="fields-title">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Label</th>
            <th scope="col">Type</th>
            <th scope="col">Required</th>
          </tr>
        </thead>
        <tbody>
          {fields.map((f) => (
            <tr key={f.name}>
              <th scope="row">
                <code>{f.name}</code>
              </th>
              <td data-label="Label">{f.label}</td>
              <td data-label="Type">{f.type}</td>
              <td data-label="Required">{f.required ? "Yes" : "No"}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** What a publish found of a field it would rename or remove, in the reads' own bounds. */
function fieldUseText({ name, submissions, read, more }: FieldInUse): string {
  const plural = (n: number) => `${n.toLocaleString("en")} submission${n === 1 ? "" : "s"}`;
  if (!more) return `${name}: in ${plural(submissions)}`;
  const newest = `the newest ${plural(read)}`;
  return submissions > 0
    ? `${name}: in ${submissions.toLocaleString("en")} of ${newest}, and perhaps in older ones`
    : `${name}: in none of ${newest}, but perhaps in older ones`;
}
