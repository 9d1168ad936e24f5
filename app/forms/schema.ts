// The shape of a form definition. One definition drives the rendered page, the server validation
// and the type of the delivered payload (FormValues), so the three cannot drift apart.

export type FieldType = "text" | "email" | "textarea" | "select" | "checkbox" | "number" | "url" | "hidden" | "file";

/**
 * One uploaded file as stored and delivered: `id` is its random id (never derived from its name),
 * `type` a type Gatepost recognised by the file's leading bytes or "application/octet-stream", and
 * `sha256` the lower-case hex digest of its bytes (app/lib/uploads/, docs/decisions/050).
 */
export interface StoredFile {
  id: string;
  name: string;
  type: string;
  size: number;
  sha256: string;
}

/** A validated field value as stored and delivered; a file field's is the list of its files. */
export type FieldValue = string | number | boolean | null | readonly StoredFile[];

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
  /** Message shown when `pattern` does not match. */
  patternMessage?: string;
  min?: number;
  max?: number;
  options?: readonly FieldOption[];
  autocomplete?: string;
  /**
   * File fields: the types taken, from the types Gatepost recognises by their leading bytes
   * (ALLOWED_FILE_TYPES in app/lib/uploads/file-types.ts); default all of them. HTML, SVG, XML,
   * scripts, archives and executables are never taken, whatever this lists.
   */
  accept?: readonly string[];
  /** File fields: how many files at most (default 1). */
  maxFiles?: number;
  /** File fields: bytes per file at most (default 10 MB). */
  maxBytes?: number;
}

/**
 * Where accepted submissions go: a kind, never an address. Its URLs, addresses and secrets come from
 * the form's settings, named after the form id (`webhook` on form `contact`: CONTACT_WEBHOOK_URL and
 * CONTACT_WEBHOOK_SECRET; app/lib/settings/settings.server.ts). A kind whose setting is empty is off.
 * docs/destinations.md describes each kind.
 */
export interface WebhookDestination {
  kind: "webhook";
}

/** An e-mail to the owner's address(es) in <FORM>_EMAIL_TO, sent from EMAIL_FROM. */
export interface EmailDestination {
  kind: "email";
}

/** A Slack incoming-webhook message (Block Kit) to <FORM>_SLACK_WEBHOOK_URL. */
export interface SlackDestination {
  kind: "slack";
}

/** A Discord webhook message (an embed) to <FORM>_DISCORD_WEBHOOK_URL. */
export interface DiscordDestination {
  kind: "discord";
}

/**
 * An e-mail to the address the sender typed (the form's first e-mail field), sent only while
 * <FORM>_CONFIRMATION is "on", at most once per mailbox per 24 h per form and within per-network and
 * site-wide hourly caps (docs/decisions/025-*.md). It carries only this fixed text and the submission's
 * reference, never anything the sender typed (docs/decisions/017-*.md).
 */
export interface ConfirmationDestination {
  kind: "confirmation";
  subject: string;
  /** Plain text, the owner's own words. */
  text: string;
}

export type Destination = WebhookDestination | EmailDestination | SlackDestination | DiscordDestination | ConfirmationDestination;

export type DestinationKind = Destination["kind"];

export interface RateLimits {
  perMinute: number;
  perDay: number;
}

export interface FormDef<F extends readonly FieldDef[] = readonly FieldDef[]> {
  id: string;
  title: string;
  description: string;
  fields: F;
  destinations: readonly Destination[];
  /** Origins (scheme://host[:port]) that may post from other sites. */
  allowedOrigins: readonly string[];
  /** Where a plain HTML post from another site lands after success. */
  redirectUrl?: string;
  successMessage: string;
  retentionDays: number;
  rateLimit?: RateLimits;
  /** Listed on the landing page. */
  public?: boolean;
  /** Bytes of all files of one submission together at most (default 25 MB). */
  maxUploadBytes?: number;
}

type ValueOf<T extends FieldDef> = T["type"] extends "checkbox"
  ? boolean
  : T["type"] extends "number"
    ? number
    : T["type"] extends "file"
      ? readonly StoredFile[]
      : string;

/** The validated values of a form: the payload type webhook receivers get. A file field without files is []. */
export type FormValues<F extends readonly FieldDef[]> = {
  [K in F[number] as K["name"]]: K["type"] extends "file" ? ValueOf<K> : K["required"] extends true ? ValueOf<K> : ValueOf<K> | null;
};

export function defineForm<const F extends readonly FieldDef[]>(def: FormDef<F>): FormDef<F> {
  return def;
}
