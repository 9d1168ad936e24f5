import { z, type ZodObject, type ZodType } from "zod";
import { KIND_SPECS } from "~/lib/destinations/registry";
import type { KindText } from "~/lib/destinations/kind";
import { FIELD_TYPES, UPLOAD_TYPES } from "~/forms/schema";
import { MAX_FILES_CEILING, MAX_UPLOAD_BYTES_CEILING } from "~/lib/uploads/file-types";
import { LANGUAGES } from "~/lib/text/languages";
import { SpamSettingsSchema } from "~/lib/spam/definition";
import { ConditionSchema, GroupSchema, stepsSchema } from "~/lib/conditions/definition";

// A definition's shape and bounds as a zod schema, so whatever an owner types can never hurt visitors or the
// server (ADR 044): everything bounded, texts plain (no control characters). check.ts runs it.

/** 32 characters at most: the id is the form's Turnstile action, which Cloudflare caps at 32. */
export const ID = /^[a-z][a-z0-9-]{0,31}$/;
export const FIELD_NAME = /^[a-z][a-zA-Z0-9_]{0,39}$/;
// eslint-disable-next-line no-control-regex -- matching control characters is the point: they are refused
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F\u202A-\u202E\u2066-\u2069]/;
const LINE_BREAK = /[\r\n\t]/;

export const MAX_FIELDS = 50;
export const MAX_FIELD_LENGTH = 65_536;

const line = (max: number) =>
  z
    .string()
    .max(max)
    .refine((s) => !CONTROL.test(s) && !LINE_BREAK.test(s), "must be one line of plain text");
const paragraph = (max: number) =>
  z
    .string()
    .max(max)
    .refine((s) => !CONTROL.test(s), "must be plain text");
const count = (min: number, max: number, unit = "") =>
  z
    .number({ error: `must be a whole number${unit} from ${min} to ${max}` })
    .int({ error: `must be a whole number${unit} from ${min} to ${max}` })
    .min(min, { error: `must be a whole number${unit} from ${min} to ${max}` })
    .max(max, { error: `must be a whole number${unit} from ${min} to ${max}` });
/** The allow-list, named in the refusal: a type Gatepost cannot recognise by its bytes is never taken. */
const uploadType = z.enum(UPLOAD_TYPES, {
  error: (issue) =>
    `lists ${JSON.stringify(issue.input)}, which is not a type Gatepost recognises by its leading bytes (${UPLOAD_TYPES.join(", ")}); HTML, SVG, XML, scripts, archives and executables are never taken`,
});

const OptionSchema = z.strictObject({ value: line(200).min(1), label: line(200).min(1) });

const FieldSchema = z.strictObject({
  name: z.string().max(40),
  type: z.enum(FIELD_TYPES),
  label: line(200),
  hint: paragraph(500).optional(),
  required: z.boolean().optional(),
  minLength: count(0, MAX_FIELD_LENGTH).optional(),
  maxLength: count(1, MAX_FIELD_LENGTH).optional(),
  pattern: z.string().max(1000).optional(),
  patternMessage: line(200).optional(),
  min: z.number().finite().optional(),
  max: z.number().finite().optional(),
  options: z.array(OptionSchema).max(200).optional(),
  autocomplete: z
    .string()
    .regex(/^[a-z0-9 -]{1,100}$/, "must be HTML autocomplete tokens")
    .optional(),
  accept: z.array(uploadType).max(UPLOAD_TYPES.length).optional(),
  maxFiles: count(1, MAX_FILES_CEILING).optional(),
  maxBytes: count(1, MAX_UPLOAD_BYTES_CEILING, " of bytes").optional(),
  prefill: z
    .union([z.boolean(), z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, "must name a query parameter: 1 to 64 letters, digits, _ . or -")])
    .optional(),
  when: ConditionSchema.optional(),
});

const DestinationSchema = z.discriminatedUnion(
  "kind",
  KIND_SPECS.map((spec) => spec.definition({ line, paragraph })) as unknown as [ZodObject, ...ZodObject[]],
);

/** A kind's own texts (a confirmation's subject and text) translated under its name, bounded as its module says. */
function kindTextTranslations(): Record<string, ZodType> {
  const translated = (texts: readonly KindText[]) =>
    z.strictObject(Object.fromEntries(texts.map((t) => [t.key, (t.multiline ? paragraph : line)(t.max).min(1).optional()]))).optional();
  return Object.fromEntries(KIND_SPECS.flatMap((spec) => (spec.texts ? [[spec.kind, translated(spec.texts.fields)]] : [])));
}

/** The owner's texts in one more language, bounded as the originals are. */
const TranslationSchema = z.strictObject({
  title: line(120).min(1).optional(),
  description: paragraph(1000).optional(),
  successMessage: paragraph(1000).min(1).optional(),
  fields: z
    .record(
      z.string().max(40),
      z.strictObject({
        label: line(200).min(1).optional(),
        hint: paragraph(500).optional(),
        patternMessage: line(200).optional(),
        options: z
          .record(z.string().max(200), line(200).min(1))
          .refine((options) => Object.keys(options).length <= 200, "must list at most 200 options")
          .optional(),
      }),
    )
    .refine((fields) => Object.keys(fields).length <= MAX_FIELDS, `must list at most ${MAX_FIELDS} fields`)
    .optional(),
  steps: z.array(line(120).min(1)).max(20).optional(),
  ...kindTextTranslations(),
});

/** A form definition's shape and bounds. checkFormDef adds the rules that span fields. */
export const FormDefSchema = z.strictObject({
  id: z.string().max(32),
  languages: z.array(z.enum(LANGUAGES)).min(1).max(LANGUAGES.length).optional(),
  translations: z.partialRecord(z.enum(LANGUAGES), TranslationSchema).optional(),
  title: line(120).min(1),
  description: paragraph(1000),
  fields: z.array(FieldSchema).min(1).max(MAX_FIELDS),
  destinations: z.array(DestinationSchema).max(KIND_SPECS.length),
  allowedOrigins: z.array(z.string().max(200)).max(20),
  redirectUrl: z.string().max(2000).optional(),
  successMessage: paragraph(1000).min(1),
  retentionDays: z.number(),
  rateLimit: z.strictObject({ perMinute: count(1, 10_000), perDay: count(1, 1_000_000) }).optional(),
  public: z.boolean().optional(),
  maxUploadBytes: count(1, MAX_UPLOAD_BYTES_CEILING, " of bytes").optional(),
  spam: SpamSettingsSchema.optional(),
  groups: z.array(GroupSchema).max(MAX_FIELDS).optional(),
  steps: stepsSchema(line(120).min(1)).optional(),
});
