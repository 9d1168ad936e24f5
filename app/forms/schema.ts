import type { Destination, DestinationKind } from "~/lib/destinations/registry";
import type { Lang } from "~/lib/text/languages";

// The shape of a form definition: it drives the page, the server validation and the payload type (FormValues).

export const FIELD_TYPES = ["text", "email", "textarea", "select", "checkbox", "number", "url", "hidden", "file"] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

/** Only types Gatepost recognises by their leading bytes: never HTML, SVG, XML, scripts, archives or executables. */
export const UPLOAD_TYPES = ["application/pdf", "image/png", "image/jpeg", "image/gif", "image/webp"] as const;
export type UploadType = (typeof UPLOAD_TYPES)[number];
export const DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024;
export const DEFAULT_MAX_UPLOAD_BYTES = 25 * 1024 * 1024;

/** One stored file of a file field: `id` is random (never derived from the name), `sha256` lower-case hex. */
export interface StoredFile {
  id: string;
  name: string;
  type: string;
  size: number;
  sha256: string;
}

/** A validated field value as stored and delivered (a file field's: its files, possibly none). */
export type FieldValue = string | number | boolean | null | readonly StoredFile[];

/** The length cap of a field that sets no maxLength, so no field is unbounded. */
export const DEFAULT_CAP: Record<FieldType, number> = {
  text: 500,
  email: 254,
  textarea: 10_000,
  select: 200,
  checkbox: 10,
  number: 40,
  url: 2048,
  hidden: 500,
  file: 0,
};

export interface FieldOption {
  value: string;
  label: string;
}

export interface FieldDef {
  name: string;
  type: FieldType;
  label: string;
  hint?: string;
  required?: boolean;
  minLength?: number;
  maxLength?: number;
  /** A JavaScript regular expression source the whole value must match. */
  pattern?: string;
  patternMessage?: string;
  min?: number;
  max?: number;
  options?: readonly FieldOption[];
  autocomplete?: string;
  accept?: readonly UploadType[];
  maxFiles?: number;
  maxBytes?: number;
  /** Starts filled from the page's query: `true` reads ?<name>=, a string names the parameter (docs/forms.md#prefill). */
  prefill?: boolean | string;
  /** Asked only when this holds on earlier fields (docs/forms.md#conditions); otherwise neither required nor kept. */
  when?: Condition;
}

/**
 * A rule on earlier fields' answers (app/lib/conditions/). A leaf holds only while its field is itself
 * asked: `equals` and `oneOf` compare the kept value, `notEmpty` wants an answer, `checked` a checkbox's state.
 */
export type Condition =
  | { field: string; equals: string | number }
  | { field: string; oneOf: readonly (string | number)[] }
  | { field: string; notEmpty: true }
  | { field: string; checked: boolean }
  | { all: readonly Condition[] }
  | { any: readonly Condition[] };

/** Several fields asked under one condition (each field's own `when`, if any, must hold too). */
export interface FieldGroup {
  fields: readonly string[];
  when: Condition;
}

/** One page of a form in steps: its title and its fields, in the form's order (docs/forms.md#steps). */
export interface FormStep {
  title: string;
  fields: readonly string[];
}

/** Where submissions go: a kind, never an address; its URLs and secrets are the form's settings (ADR 114). */
export type { Destination, DestinationKind };

export interface RateLimits {
  perMinute: number;
  perDay: number;
}

/** One field's texts in another language; what is left out stays as the form's own language has it. */
export interface FieldTranslation {
  label?: string;
  hint?: string;
  patternMessage?: string;
  options?: Readonly<Record<string, string>>;
}

/** The owner's texts in one more language; Gatepost's own words come from its catalogues (docs/forms.md#languages). */
export interface FormTranslation {
  title?: string;
  description?: string;
  successMessage?: string;
  fields?: Readonly<Record<string, FieldTranslation>>;
  confirmation?: { subject?: string; text?: string };
  /** The steps' titles, in the steps' order. */
  steps?: readonly string[];
}

export interface FormDef<F extends readonly FieldDef[] = readonly FieldDef[]> {
  id: string;
  /** Offered languages, the own texts' first (default ["en"]); a visitor gets ?lang=, else Accept-Language, else the first. */
  languages?: readonly Lang[];
  translations?: Readonly<Partial<Record<Lang, FormTranslation>>>;
  title: string;
  description: string;
  fields: F;
  destinations: readonly Destination[];
  allowedOrigins: readonly string[];
  /** Where a plain HTML post from another site lands after success. */
  redirectUrl?: string;
  successMessage: string;
  retentionDays: number;
  rateLimit?: RateLimits;
  public?: boolean;
  maxUploadBytes?: number;
  /** Fields asked together under one condition. */
  groups?: readonly FieldGroup[];
  /** The form split into titled steps, every field in one, in order; without JavaScript, one page. */
  steps?: readonly FormStep[];
  /** Content rules and the learning filter's threshold (docs/forms.md#spam; app/lib/spam/). */
  spam?: SpamSettings;
}

/** What a spam rule does on a match: keep it out of the outbox (the visitor sees the thank-you), or refuse it. */
export type SpamAction = "quarantine" | "refuse";

/** One content rule (docs/forms.md#spam); each names its action. */
export type SpamRule = { action: SpamAction } & (
  | { kind: "phrases"; phrases: readonly string[] }
  | { kind: "senders"; senders: readonly string[] }
  | { kind: "disposable" }
  | { kind: "links"; max: number }
  | { kind: "scripts"; field: string; scripts: readonly string[] }
  | { kind: "repeat"; field: string; of: string }
);

export interface SpamSettings {
  rules?: readonly SpamRule[];
  /** The learning filter's score from 0 to 1 above which a post is quarantined (default 0.9). */
  threshold?: number;
  filter?: boolean;
}

type ValueOf<T extends FieldDef> = T["type"] extends "checkbox"
  ? boolean
  : T["type"] extends "number"
    ? number
    : T["type"] extends "file"
      ? readonly StoredFile[]
      : string;

/** The validated values of a form: the payload type webhook receivers get (a field asked under a condition may be absent). */
export type FormValues<F extends readonly FieldDef[]> = {
  [K in F[number] as K extends { when: Condition } ? never : K["name"]]: K["required"] extends true ? ValueOf<K> : ValueOf<K> | null;
} & {
  [K in F[number] as K extends { when: Condition } ? K["name"] : never]?: K["required"] extends true ? ValueOf<K> : ValueOf<K> | null;
};

export function defineForm<const F extends readonly FieldDef[]>(def: FormDef<F>): FormDef<F> {
  return def;
}
