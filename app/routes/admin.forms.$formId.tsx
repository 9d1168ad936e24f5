import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import type { ShouldRevalidateFunction } from "@remix-run/react";
import { Form, Link, useActionData, useLoaderData, useNavigation, useRouteLoaderData, useSearchParams } from "@remix-run/react";
import { useState } from "react";
import { FormEditorFields } from "~/components/admin/form-editor/editor-fields";
import { previewMarkup } from "~/components/admin/form-editor/preview-markup.server";
import {
  ArchiveForm,
  Changes,
  FieldTable,
  NamesInUse,
  PreviewPanel,
  ProblemsSummary,
  Suggestions,
  Versions,
} from "~/components/admin/form-editor/page-sections";
import { useLivePreview } from "~/components/admin/form-editor/use-live-preview";
import { SpamRules } from "~/components/admin/spam-rules";
import { consoleRoute } from "~/lib/console/route.server";
import { loadFormPage, runEditorAction } from "~/lib/form-editor/form-page.server";
import { adminHeaders, adminMeta, formatUtc } from "~/lib/console/page";
import type { loader as layoutLoader } from "~/routes/admin";

// One form in the console (lib/form-editor/form-page.server.ts): a form file shown as code, or a console
// form's editor beside its preview, which follows typing. Viewers read.

export const headers = adminHeaders;
export const meta: MetaFunction<typeof loader> = ({ data }) =>
  adminMeta(data ? `Form ${data.id}` : "Form", "Edit a form, preview it and publish it as a new version.");

export const loader = consoleRoute((args: LoaderFunctionArgs) => loadFormPage(args, previewMarkup));
export const action = consoleRoute((args: ActionFunctionArgs) => runEditorAction(args, previewMarkup));

/** A preview post saves nothing, so nothing needs loading again. */
export const shouldRevalidate: ShouldRevalidateFunction = ({ formData, defaultShouldRevalidate }) =>
  formData?.get("intent") === "preview" ? false : defaultShouldRevalidate;

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
  const revision = `${data.revision}:${result?.focus ?? ""}:${result ? "r" : ""}`;
  const preview = useLivePreview(revision, data.preview);
  // The title as typed, until the next answer from the server.
  const [typed, setTyped] = useState<{ revision: string; title: string } | null>(null);
  const title = typed?.revision === revision ? typed.title : (draft?.title ?? data.id);
  const archived = data.summary?.status === "archived";
  return (
    <>
      <p className="small">
        <Link to="/admin/forms">All forms</Link>
      </p>
      <h1>{title || data.id}</h1>
      <p>
        <code>{data.id}</code>{" "}
        {data.source === "code"
          ? `· a form file (app/forms/), version ${data.version}`
          : data.summary?.status === "draft"
            ? "· a console form, not published yet"
            : `· a console form, version ${data.version}${archived ? ", archived" : ""}${data.draft ? ", with an unpublished draft" : ""}`}
      </p>
      <p className="links">
        {data.version !== null && !archived ? <a href={`/f/${data.id}`}>Open the form</a> : null}
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
      <ProblemsSummary problems={problems} />
      <Suggestions suggestions={data.suggestions} />
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
        <div className="editor-layout">
          <Form method="post" className="editor" aria-label={`Edit ${title}`} onChange={canEdit ? preview.onChange : undefined}>
            <fieldset className="editor-all" disabled={!canEdit || busy}>
              <legend className="visually-hidden">Draft of {title}</legend>
              <FormEditorFields
                draft={draft}
                revision={revision}
                focus={result?.focus ?? null}
                kindTexts={data.kindTexts}
                onTitle={(typedTitle) => setTyped({ revision, title: typedTitle })}
              />
              <NamesInUse fields={result?.fieldsInUse ?? []} />
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
          {preview.markup !== null ? <PreviewPanel title={title} markup={preview.markup} live={preview.live && canEdit} /> : null}
        </div>
      ) : null}
      <Changes changes={data.changes} />
      <Versions
        versions={(data.summary?.versions ?? []).map(
          (v) => `Version ${v.version}, published ${formatUtc(v.publishedAt)} by ${v.publishedBy}`,
        )}
      />
      {canEdit && data.version !== null ? <ArchiveForm archived={archived} /> : null}
    </>
  );
}
