import { FIELD_TYPES, UPLOAD_TYPES, type Destination, type DestinationKind, type FieldDef, type FormDef } from "~/forms/schema";
import type { KindText } from "~/lib/settings/kinds/kind";
import { KIND_SPECS } from "~/lib/settings/kinds/registry";
import { refusal } from "~/lib/http/responses.server";
import { readMessageUpTo } from "~/lib/http/read-stream.server";

// The console's form editor posts the whole draft as one plain HTML form (it works without JavaScript,
// and every control is a labelled native input): form settings by name, each field as
// `fields.<i>.<key>`, and the button pressed as `intent`. This module reads that post into a definition
// and applies the intent's edit (add, remove, move); the definition check judges the result.

/** A definition of MAX_FIELDS fields with long hints and option lists fits well within this. */
const MAX_EDITOR_BYTES = 192 * 1024;
const MB = 1024 * 1024;

export type EditorIntent =
  { kind: "save" | "publish" | "discard" | "archive" | "restore" | "add" } | { kind: "remove" | "up" | "down"; index: number };

export interface EditorPost {
  intent: EditorIntent;
  draft: FormDef;
  /** The author confirmed renaming or removing fields that hold data. */
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
  const simple = ["save", "publish", "discard", "archive", "restore", "add"] as const;
  const found = simple.find((kind) => kind === value);
  if (found) return { kind: found };
  const moved = /^(remove|up|down):(\d{1,2})$/.exec(value);
  return moved ? { kind: moved[1] as "remove" | "up" | "down", index: Number(moved[2]) } : null;
}

const text = (params: URLSearchParams, key: string) => (params.get(key) ?? "").replace(/\r\n/g, "\n");
const oneLine = (params: URLSearchParams, key: string) => text(params, key).trim();

/** "" is unset; anything else a number (NaN for junk, which the check then names). */
function numberOf(params: URLSearchParams, key: string, scale = 1): number | undefined {
  const value = oneLine(params, key);
  if (value === "") return undefined;
  const n = Number(value);
  return Number.isFinite(n) ? Math.round(n * scale * 1e6) / 1e6 : Number.NaN;
}

function optional<T>(value: T | undefined | ""): T | undefined {
  return value === "" ? undefined : (value ?? undefined);
}

/** The kinds a console form gets (each kind's module says; its settings decide whether it is on). */
function consoleFormDestinations(): Destination[] {
  return KIND_SPECS.filter((spec) => spec.onConsoleForms).map((spec) => ({ kind: spec.kind }) as Destination);
}

/** A kind's own texts as the editor shows them (its section, what it needs to work), sent with the page's data. */
export interface KindTextsView {
  kind: DestinationKind;
  legend: string;
  intro: string;
  needs: string[];
  fields: readonly KindText[];
}

/** Every kind with texts of its own, in the registry's order: the editor's sections after the fields. */
export function kindTextsViews(): KindTextsView[] {
  return KIND_SPECS.flatMap((spec) =>
    spec.texts
      ? [{ kind: spec.kind, ...spec.texts, needs: spec.settings.flatMap((setting) => (setting.needs ? [setting.needs] : [])) }]
      : [],
  );
}

/** The kinds' own texts typed as `<kind>.<key>`: a kind is in the definition when one of its texts is set. */
function kindTextDestinations(params: URLSearchParams): Destination[] {
  return kindTextsViews().flatMap(({ kind, fields }) => {
    const values = fields.map((f) => [f.key, f.multiline ? text(params, `${kind}.${f.key}`).trim() : oneLine(params, `${kind}.${f.key}`)]);
    return values.some(([, value]) => value) ? [{ kind, ...Object.fromEntries(values) } as Destination] : [];
  });
}

/** The definition the editor's inputs describe. Never throws; the definition check judges it. */
export function draftOf(params: URLSearchParams, id: string): FormDef {
  const fields: FieldDef[] = [];
  for (let i = 0; i < 60 && params.has(`fields.${i}.name`); i++) fields.push(fieldOf(params, `fields.${i}.`));
  const perMinute = numberOf(params, "perMinute");
  const perDay = numberOf(params, "perDay");
  const destinations: Destination[] = [...consoleFormDestinations(), ...kindTextDestinations(params)];
  const maxUploadBytes = numberOf(params, "maxUploadMb", MB);
  const languages = oneLine(params, "languages").split(/\s+/).filter(Boolean);
  const translations = translationsOf(text(params, "translations").trim());
  const spam = translationsOf(text(params, "spam").trim()) as FormDef["spam"] | undefined;
  return {
    id,
    title: oneLine(params, "title"),
    description: text(params, "description").trim(),
    fields,
    destinations,
    allowedOrigins: oneLine(params, "allowedOrigins").split(/\s+/).filter(Boolean),
    ...(optional(oneLine(params, "redirectUrl")) ? { redirectUrl: oneLine(params, "redirectUrl") } : {}),
    successMessage: text(params, "successMessage").trim(),
    retentionDays: numberOf(params, "retentionDays") ?? Number.NaN,
    ...(perMinute !== undefined || perDay !== undefined
      ? { rateLimit: { perMinute: perMinute ?? Number.NaN, perDay: perDay ?? Number.NaN } }
      : {}),
    ...(params.get("public") === "on" ? { public: true } : {}),
    ...(maxUploadBytes !== undefined ? { maxUploadBytes } : {}),
    // Unchecked here, as every input is: the definition check names a language it does not know.
    ...(languages.length > 0 ? { languages: languages as FormDef["languages"] } : {}),
    ...(translations !== undefined ? { translations } : {}),
    ...(spam !== undefined ? { spam } : {}),
  };
}

/** JSON typed in the editor (translations, spam rules); text that is not JSON stays text, which the definition check refuses. */
function translationsOf(typed: string): FormDef["translations"] | undefined {
  if (typed === "") return undefined;
  try {
    return JSON.parse(typed) as FormDef["translations"];
  } catch {
    return typed as unknown as FormDef["translations"];
  }
}

function fieldOf(params: URLSearchParams, prefix: string): FieldDef {
  const get = (key: string) => oneLine(params, prefix + key);
  const type = FIELD_TYPES.find((t) => t === get("type")) ?? "text";
  const field: FieldDef = { name: get("name"), type, label: get("label") };
  const hint = text(params, `${prefix}hint`).trim();
  if (hint) field.hint = hint;
  if (params.get(`${prefix}required`) === "on") field.required = true;
  const numbers = { minLength: numberOf(params, `${prefix}minLength`), maxLength: numberOf(params, `${prefix}maxLength`) };
  if (numbers.minLength !== undefined) field.minLength = numbers.minLength;
  if (numbers.maxLength !== undefined) field.maxLength = numbers.maxLength;
  if (type === "number") {
    const [min, max] = [numberOf(params, `${prefix}min`), numberOf(params, `${prefix}max`)];
    if (min !== undefined) field.min = min;
    if (max !== undefined) field.max = max;
  }
  if (get("pattern")) field.pattern = get("pattern");
  if (get("pattern") && get("patternMessage")) field.patternMessage = get("patternMessage");
  if (get("autocomplete")) field.autocomplete = get("autocomplete");
  if (type === "select") field.options = optionsOf(text(params, `${prefix}options`));
  if (type === "file") {
    const accept = params
      .getAll(`${prefix}accept`)
      .filter((t): t is (typeof UPLOAD_TYPES)[number] => (UPLOAD_TYPES as readonly string[]).includes(t));
    if (accept.length > 0 && accept.length < UPLOAD_TYPES.length) field.accept = accept;
    const maxFiles = numberOf(params, `${prefix}maxFiles`);
    const maxBytes = numberOf(params, `${prefix}maxMb`, MB);
    if (maxFiles !== undefined) field.maxFiles = maxFiles;
    if (maxBytes !== undefined) field.maxBytes = maxBytes;
  }
  return field;
}

/** "value | Label" per line; a line without "|" is its own value and label. */
function optionsOf(lines: string): { value: string; label: string }[] {
  return lines
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const bar = line.indexOf("|");
      return bar < 0 ? { value: line, label: line } : { value: line.slice(0, bar).trim(), label: line.slice(bar + 1).trim() };
    });
}

/** The editor's text for a select's options. */
export function optionsText(field: FieldDef): string {
  return (field.options ?? []).map((o) => (o.value === o.label ? o.value : `${o.value} | ${o.label}`)).join("\n");
}

/** Applies an add, remove or move to the draft's fields; returns the index to focus afterwards. */
export function applyFieldEdit(draft: FormDef, intent: EditorIntent): { draft: FormDef; focus: number | null } {
  const fields = [...draft.fields];
  if (intent.kind === "add") {
    let n = fields.length + 1;
    while (fields.some((f) => f.name === `field${n}`)) n += 1;
    fields.push({ name: `field${n}`, type: "text", label: `Field ${n}`, hint: "" });
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
