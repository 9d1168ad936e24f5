import { FIELD_TYPES, UPLOAD_TYPES, type Destination, type FieldDef, type FormDef } from "~/forms/schema";
import { hasSetting } from "~/lib/form-editor/field-settings";
import { KIND_SPECS } from "~/lib/destinations/registry";
import { kindTextsViews } from "~/lib/form-editor/kind-texts.server";
import { conditionTyped, stepsTyped } from "~/lib/form-editor/draft-conditions.server";

// The editor's post read into a definition, a field's settings only where its type owns them. Nothing here
// throws: the definition check judges what was typed.

const MB = 1024 * 1024;

const text = (params: URLSearchParams, key: string) => (params.get(key) ?? "").replace(/\r\n/g, "\n");
const oneLine = (params: URLSearchParams, key: string) => text(params, key).trim();

/** "" is unset; anything else a number (NaN for junk, which the check then names). */
function numberOf(params: URLSearchParams, key: string, scale = 1): number | undefined {
  const value = oneLine(params, key);
  if (value === "") return undefined;
  const n = Number(value);
  return Number.isFinite(n) ? Math.round(n * scale * 1e6) / 1e6 : Number.NaN;
}

/** The kinds a console form gets (each kind's module says; its settings decide whether it is on). */
export function consoleFormDestinations(): Destination[] {
  return KIND_SPECS.filter((spec) => spec.onConsoleForms).map((spec) => ({ kind: spec.kind }) as Destination);
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
  fields.forEach((field, i) => {
    const when = conditionTyped(params, i, fields);
    if (when) field.when = when;
  });
  const steps = stepsTyped(params, fields);
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
    ...(oneLine(params, "redirectUrl") ? { redirectUrl: oneLine(params, "redirectUrl") } : {}),
    successMessage: text(params, "successMessage").trim(),
    retentionDays: numberOf(params, "retentionDays") ?? Number.NaN,
    ...(perMinute !== undefined || perDay !== undefined
      ? { rateLimit: { perMinute: perMinute ?? Number.NaN, perDay: perDay ?? Number.NaN } }
      : {}),
    ...(params.get("public") === "on" ? { public: true } : {}),
    ...(maxUploadBytes !== undefined ? { maxUploadBytes } : {}),
    ...(languages.length > 0 ? { languages: languages as FormDef["languages"] } : {}),
    ...(translations !== undefined ? { translations } : {}),
    ...(spam !== undefined ? { spam } : {}),
    ...(steps ? { steps } : {}),
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
  const num = (key: string, scale = 1) => numberOf(params, prefix + key, scale);
  const type = FIELD_TYPES.find((t) => t === get("type")) ?? "text";
  const owns = (setting: Parameters<typeof hasSetting>[1]) => hasSetting(type, setting);
  const field: FieldDef = { name: get("name"), type, label: get("label") };
  const hint = text(params, `${prefix}hint`).trim();
  if (owns("hint") && hint) field.hint = hint;
  if (params.get(`${prefix}required`) === "on") field.required = true;
  const set = <K extends keyof FieldDef>(key: K, value: FieldDef[K] | undefined) => {
    if (value !== undefined) field[key] = value;
  };
  if (owns("length")) {
    set("minLength", num("minLength"));
    set("maxLength", num("maxLength"));
  }
  if (owns("range")) {
    set("min", num("min"));
    set("max", num("max"));
  }
  if (owns("pattern") && get("pattern")) {
    field.pattern = get("pattern");
    if (get("patternMessage")) field.patternMessage = get("patternMessage");
  }
  if (owns("autocomplete") && get("autocomplete")) field.autocomplete = get("autocomplete");
  if (owns("options")) field.options = optionsOf(text(params, `${prefix}options`));
  if (owns("files")) {
    const accept = params
      .getAll(`${prefix}accept`)
      .filter((t): t is (typeof UPLOAD_TYPES)[number] => (UPLOAD_TYPES as readonly string[]).includes(t));
    if (accept.length > 0 && accept.length < UPLOAD_TYPES.length) field.accept = accept;
    set("maxFiles", num("maxFiles"));
    set("maxBytes", num("maxMb", MB));
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
