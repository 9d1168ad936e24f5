import type { FormDef } from "~/forms/schema";
import { consoleFormDestinations, draftOf } from "~/lib/form-editor/draft.server";
import { refusal } from "~/lib/http/responses.server";
import { readMessageUpTo } from "~/lib/http/read-stream.server";

// The editor posts the whole draft as one plain HTML form (it works without JavaScript): fields as
// `fields.<i>.<key>`, the button pressed as `intent`. The definition check judges the result.

const MAX_EDITOR_BYTES = 192 * 1024;

export type EditorIntent =
  { kind: "save" | "publish" | "discard" | "archive" | "restore" | "add" | "preview" } | { kind: "remove" | "up" | "down"; index: number };

export interface EditorPost {
  intent: EditorIntent;
  draft: FormDef;
  confirmFieldNames: boolean;
}

/** Reads the editor's post. Throws a 400 refusal for a body that is too large or not a form. */
export async function readEditorPost(request: Request, id: string): Promise<EditorPost> {
  const type = (request.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  const read = await readMessageUpTo(request, MAX_EDITOR_BYTES);
  if (!read || read.overflow || (type !== "application/x-www-form-urlencoded" && type !== "")) throw refusal("admin_bad_request");
  let params: URLSearchParams;
  try {
    params = new URLSearchParams(new TextDecoder("utf-8", { fatal: true }).decode(read.bytes));
  } catch {
    throw refusal("admin_bad_request");
  }
  const intent = parseIntent(params.get("intent") ?? "save");
  if (!intent) throw refusal("admin_bad_request");
  return { intent, draft: draftOf(params, id), confirmFieldNames: params.get("confirmFieldNames") === "yes" };
}

function parseIntent(value: string): EditorIntent | null {
  const simple = ["save", "publish", "discard", "archive", "restore", "add", "preview"] as const;
  const found = simple.find((kind) => kind === value);
  if (found) return { kind: found };
  const moved = /^(remove|up|down):(\d{1,2})$/.exec(value);
  return moved ? { kind: moved[1] as "remove" | "up" | "down", index: Number(moved[2]) } : null;
}

/** Applies an add, remove or move to the draft's fields; returns the index to focus afterwards. */
export function applyFieldEdit(draft: FormDef, intent: EditorIntent): { draft: FormDef; focus: number | null } {
  const fields = [...draft.fields];
  if (intent.kind === "add") {
    let n = fields.length + 1;
    while (fields.some((f) => f.name === `field${n}`)) n += 1;
    fields.push({ name: `field${n}`, type: "text", label: `Field ${n}`, hint: "", required: true });
    return { draft: { ...draft, fields }, focus: fields.length - 1 };
  }
  if (intent.kind === "remove" || intent.kind === "up" || intent.kind === "down") {
    const i = intent.index;
    if (i >= fields.length) return { draft, focus: null };
    if (intent.kind === "remove") {
      fields.splice(i, 1);
      return { draft: { ...draft, fields }, focus: fields.length > 0 ? Math.min(i, fields.length - 1) : null };
    }
    const j = intent.kind === "up" ? i - 1 : i + 1;
    if (j < 0 || j >= fields.length) return { draft, focus: i };
    [fields[i], fields[j]] = [fields[j], fields[i]];
    return { draft: { ...draft, fields }, focus: j };
  }
  return { draft, focus: null };
}

/** A new console form's first draft: a contact form to edit, not a blank page. */
export function starterDefinition(id: string, title: string): FormDef {
  return {
    id,
    title,
    description: "",
    fields: [
      {
        name: "name",
        type: "text",
        label: "Your name",
        hint: "How you would like to be addressed.",
        required: true,
        maxLength: 100,
        autocomplete: "name",
      },
      {
        name: "email",
        type: "email",
        label: "E-mail address",
        hint: "We only use it to reply to you.",
        required: true,
        maxLength: 254,
        autocomplete: "email",
      },
      { name: "message", type: "textarea", label: "Message", hint: "What would you like to tell us?", required: true, maxLength: 5000 },
    ],
    destinations: consoleFormDestinations(),
    allowedOrigins: [],
    successMessage: "Thank you — we received what you sent.",
    retentionDays: 90,
  };
}

/** A console form as a form file for app/forms/ (docs/forms.md): the same definition, as code. */
export function formFileText(form: FormDef): string {
  const name = `${form.id.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase())}Form`;
  return `import { defineForm } from "~/forms/schema";\n\nexport const ${name} = defineForm(${JSON.stringify(form, null, 2)});\n`;
}
