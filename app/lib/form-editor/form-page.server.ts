import { json, redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from "@remix-run/cloudflare";
import type { FormDef } from "~/forms/schema";
import { requireAdminAction, requireUser } from "~/lib/auth/admin-user.server";
import { applyFieldEdit, readEditorPost } from "~/lib/form-editor/editor-post.server";
import {
  discardDraft,
  listForms,
  loadConsoleForm,
  publishDraft,
  saveDraft,
  setArchived,
  type FieldInUse,
} from "~/lib/form-editor/lifecycle.server";
import { formIdParam } from "~/lib/console/input.server";
import { kindTextsViews } from "~/lib/form-editor/kind-texts.server";
import { describeChanges } from "~/lib/forms/changes";
import { checkFormDef, suggestionsFor } from "~/lib/forms/check";
import { formCatalog } from "~/lib/forms/live.server";
import { ERRORS } from "~/lib/http/errors";
import { refusal } from "~/lib/http/responses.server";

// One form's console page: a form file is shown as code; a console form gets the editor, the preview, versions,
// publish and archive. The route hands in the preview's renderer, which belongs to the components.

export type RenderPreview = (draft: FormDef) => string | null;

/** The page's data for the form in the URL. Throws form_not_found for an id that is neither. */
export async function loadFormPage({ request, params, context }: LoaderFunctionArgs, previewMarkup: RenderPreview) {
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
      problems: [] as string[],
      suggestions: [] as string[],
      changes: [] as string[],
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
    preview: draft ? previewMarkup(draft) : null,
    // The kinds' own texts' words come with the data: the registry stays on the server.
    kindTexts: kindTextsViews(),
  };
}

export interface EditorAnswer {
  ok: boolean;
  message: string;
  problems: string[];
  fieldsInUse: FieldInUse[];
  focus: number | null;
  draft: FormDef | null;
  /** The draft as typed, rendered: the answer to a "preview" post, which saves nothing. */
  preview?: string | null;
}

const NO_ANSWER = { problems: [], fieldsInUse: [], focus: null, draft: null };

function answer(body: EditorAnswer, status = 200) {
  return json(body, { status });
}

/** Runs the editor's post: save, publish, discard, archive, restore, a field edit, or a preview. */
export async function runEditorAction({ request, params, context }: ActionFunctionArgs, previewMarkup: RenderPreview) {
  const user = await requireAdminAction(request, context);
  const id = formIdParam(params.formId);
  const post = await readEditorPost(request, id);
  const ctx = { db: context.cloudflare.env.DB, settings: context.settings, user, request, nowMs: Date.now() };
  const { intent } = post;
  if (intent.kind === "preview") return answer({ ok: true, message: "", ...NO_ANSWER, preview: previewMarkup(post.draft) });
  if (intent.kind === "archive" || intent.kind === "restore") {
    const result = await setArchived(ctx, id, intent.kind === "archive");
    const done = intent.kind === "archive" ? "Archived: new submissions are refused." : "Restored: the form takes submissions again.";
    return answer({ ok: result.ok, message: result.ok ? done : ERRORS[result.code].message, ...NO_ANSWER });
  }
  if (intent.kind === "discard") {
    const result = await discardDraft(ctx, id);
    const done = "The draft was discarded; the published version is unchanged.";
    return answer({ ok: result.ok, message: result.ok ? done : ERRORS[result.code].message, ...NO_ANSWER });
  }
  const edit = applyFieldEdit(post.draft, intent);
  const saved = await saveDraft(ctx, id, edit.draft);
  if (!saved.ok) {
    const problems = saved.problems ?? [ERRORS[saved.code].message];
    return answer(
      { ok: false, message: "The draft was not saved: fix the problems listed.", ...NO_ANSWER, problems, draft: edit.draft },
      422,
    );
  }
  if (intent.kind === "publish") {
    const published = await publishDraft(ctx, id, { confirmFieldNames: post.confirmFieldNames });
    if (published.ok) throw redirect(`/admin/forms/${id}?published=${published.version}`, 303);
    const { problems = [], fieldsInUse = [] } = published;
    return answer(
      { ok: false, message: ERRORS[published.code].message, ...NO_ANSWER, problems, fieldsInUse },
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
  return answer({ ok: true, message, ...NO_ANSWER, problems: saved.problems, focus: edit.focus });
}
