import { DEFAULT_CAP, DEFAULT_MAX_FILE_BYTES, UPLOAD_TYPES, type FieldDef, type FormDef } from "~/forms/schema";
import { prefillName } from "~/lib/forms/prefill";
import { schemaPatternKeywords } from "~/lib/forms/pattern";
import { alwaysAsked, conditionKeywords } from "~/lib/conditions/json-schema";
import { EMAIL_MAX_LENGTH, EMAIL_PATTERN, WEB_PATTERN } from "~/lib/forms/value-formats";

// A form as JSON Schema 2020-12 (/f/:id/schema.json), so a receiver can check `submission.fields` with any kept
// validator: what validation guarantees of a stored submission, in the dialect's own keywords only (Ajv strict
// takes it); a field asked under a condition
// is required only when it holds (app/lib/conditions/json-schema.ts). Addresses use Gatepost's own patterns, not the ASCII-only `email`/`uri` formats (value-formats.ts).

export const JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema";

type JsonSchema = Record<string, unknown>;

/** The schema of `form`'s submission fields at `version`, its $id under `origin`. */
export function formJsonSchema(form: FormDef, version: string, origin: string): JsonSchema {
  return {
    $schema: JSON_SCHEMA_DIALECT,
    $id: `${origin}/f/${form.id}/schema.json?version=${encodeURIComponent(version)}`,
    title: form.title,
    description: form.description,
    type: "object",
    properties: Object.fromEntries(form.fields.map((field) => [field.name, fieldSchema(field)])),
    // A field asked under a condition is required only when it holds (if/then), and present only then.
    required: alwaysAsked(form),
    additionalProperties: false,
    ...conditionKeywords(form),
  };
}

// Kept per isolate, keyed by everything it is made of: checking patterns costs more than serving them (ADR 113).
const MAX_KEPT_SCHEMAS = 32;
const keptSchemas = new Map<string, string>();

/** formJsonSchema as indented JSON text, built once per definition, version and origin in this isolate. */
export function formJsonSchemaText(form: FormDef, version: string, origin: string): string {
  const key = `${origin}\n${version}\n${JSON.stringify(form)}`;
  let text = keptSchemas.get(key);
  if (text === undefined) {
    text = JSON.stringify(formJsonSchema(form, version, origin), null, 2);
    if (keptSchemas.size >= MAX_KEPT_SCHEMAS) keptSchemas.delete(keptSchemas.keys().next().value!);
  } else {
    keptSchemas.delete(key);
  }
  keptSchemas.set(key, text);
  return text;
}

function fieldSchema(field: FieldDef): JsonSchema {
  const schema = typedSchema(field);
  const from = prefillName(field);
  if (from === null) return schema;
  // Only the dialect's own keywords (strict validators), so prefill is said in a $comment.
  const note = `Prefilled from the page address's ?${from}= parameter.`;
  return { ...schema, $comment: typeof schema.$comment === "string" ? `${schema.$comment} ${note}` : note };
}

function typedSchema(field: FieldDef): JsonSchema {
  const about: JsonSchema = { title: field.label, ...(field.hint ? { description: field.hint } : {}) };
  const nullable = (type: string) => (field.required ? type : [type, "null"]);
  switch (field.type) {
    case "checkbox":
      // A required checkbox is only ever stored ticked.
      return { ...about, type: "boolean", ...(field.required ? { const: true } : {}) };
    case "number":
      return {
        ...about,
        type: nullable("number"),
        ...(field.min !== undefined ? { minimum: field.min } : {}),
        ...(field.max !== undefined ? { maximum: field.max } : {}),
      };
    case "select": {
      const values: Array<string | null> = (field.options ?? []).map((o) => o.value);
      return { ...about, type: nullable("string"), enum: field.required ? values : [...values, null] };
    }
    case "file":
      return { ...about, ...fileSchema(field) };
    default: {
      const shape = field.type === "email" ? EMAIL_PATTERN : field.type === "url" ? WEB_PATTERN : undefined;
      const own = field.pattern !== undefined ? schemaPatternKeywords(field.pattern) : {};
      return {
        ...about,
        type: nullable("string"),
        // Empty text is kept as null, never as "": a kept text has at least one character.
        minLength: Math.max(1, field.minLength ?? 1),
        maxLength: Math.min(field.maxLength ?? DEFAULT_CAP[field.type], field.type === "email" ? EMAIL_MAX_LENGTH : Infinity),
        // A value must match both the kind's shape and the owner's pattern: the second one under allOf.
        ...(shape !== undefined ? { pattern: shape, ...("pattern" in own ? { allOf: [own] } : own) } : own),
      };
    }
  }
}

/** The shape agreed for uploads: a list of stored files, each described, never their content. */
function fileSchema(field: FieldDef): JsonSchema {
  return {
    type: "array",
    ...(field.required ? { minItems: 1 } : {}),
    maxItems: field.maxFiles ?? 1,
    items: {
      type: "object",
      required: ["id", "name", "type", "size", "sha256"],
      properties: {
        id: { type: "string" },
        name: { type: "string" },
        type: { enum: [...(field.accept ?? UPLOAD_TYPES)] },
        size: { type: "integer", minimum: 0, maximum: field.maxBytes ?? DEFAULT_MAX_FILE_BYTES },
        sha256: { type: "string", pattern: "^[0-9a-f]{64}$" },
      },
    },
  };
}
