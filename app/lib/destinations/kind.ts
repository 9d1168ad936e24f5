import type { ZodObject, ZodType } from "zod";

// What a destination kind is, apart from how it sends: its settings (names, checks, which are secret,
// what the console shows and asks), its names for people, and its shape in a form definition. Each
// kind's folder says it in <kind>/spec.ts, beside its sender (<kind>/sender.server.ts); registry.ts
// lists the kinds (ADR 114). Client-safe: the console renders it.

/** A typed value as delivery will read it, or why it cannot be used, in words for whoever typed it. */
export type SettingCheck = { ok: true; value: string } | { ok: false; message: string };

export interface SettingCheckContext {
  /** Local dev only: plain http to this computer is allowed. */
  allowLoopbackHttp: boolean;
}

/** Where `npm start` sends a console form's unset destinations (ADR 066). */
export interface SinkAddress {
  origin: string;
  secret: string;
  /** The service account key the sink's spreadsheet stand-in trusts, when `npm start` gave one. */
  sheetsKey?: string | null;
}

export interface KindSetting {
  /** After the form's prefix: suffix `X_URL` is CONTACT_X_URL for form contact. */
  suffix: string;
  /** The console's words: the setting's title, the new value's label ("" when not typed), a hint. */
  title: string;
  input: string;
  hint: string;
  type: "url" | "text";
  /** The longest value the console's input takes (default 2,000 characters). */
  maxLength?: number;
  /** What the console may show of a stored value: in full, a URL's host and last characters, or nothing. */
  shown: "full" | "url" | "never";
  /** How a person's value is checked; absent when Gatepost makes the value itself (a signing secret). */
  check?(value: string, context: SettingCheckContext): SettingCheck;
  /** Why the environment's value cannot be used, for /healthz (the variable's name comes first); null when it can. */
  problem?(value: string, context: SettingCheckContext): string | null;
  /** This value asks for e-mail to be sent, so EMAIL_FROM must be set. */
  wantsEmailFrom?(value: string): boolean;
  /** What the setting needs beyond its value to work, said where it is switched on. */
  needs?: string;
  /** Under `npm start`, a console form's value while unset (`formId`: the form's); null where the sink has none to give. */
  local?(sink: SinkAddress, formId: string): string | null;
  /**
   * Gatepost makes the value (a signing secret): never typed, shown once, rotated with an overlap
   * (ADR 042) and told to the local sink under `npm start` (ADR 066).
   */
  generate?(): string;
  /** Gatepost can make an ed25519 key pair instead (ADR 120): the secret key is kept, the public key shown. */
  generatePair?(): Promise<{ secret: string; publicKey: string }>;
  /** Switched on and off in the console rather than typed: the value it stores when on, and its buttons' words. */
  toggle?: { value: string; on: string; off: string };
  /**
   * The site-wide variable that stands in while a form's own value is unset, read from the environment
   * only; `note` says when it is used (the kind's sender decides how its settings fall back together).
   * `whileUnset`: the form's own setting (a suffix) whose value turns every site-wide stand-in of the kind off.
   */
  siteWide?: { variable: string; note: string; whileUnset?: string };
}

/** One of a kind's own texts in a form definition (a confirmation's subject), as the form editor asks for it. */
export interface KindText {
  /** Its key in the definition's destination and in a translation's entry for the kind. */
  key: string;
  label: string;
  hint?: string;
  max: number;
  multiline: boolean;
}

/** The zod pieces a definition's own texts are checked with (app/lib/forms/check.ts). */
export interface DefinitionTexts {
  line(max: number): ZodType<string>;
  paragraph(max: number): ZodType<string>;
}

export interface KindSpec {
  /** Its name: in definitions, settings' suffixes, the outbox's rows; also its folder's name. */
  kind: string;
  /** The product it posts to, when it is one (a name no other file of app/ writes: the unit test checks). */
  product?: string;
  /** The kind in the timeline and lists, as a person reads it. */
  label: string;
  /** What the timeline calls a delivery's id when the receiver sees it under another name. */
  idLabel?: string;
  /** "Send a test to …"; null: the console offers no test. */
  testLabel: string | null;
  settings: readonly KindSetting[];
  /** Whether the form's own values switch it on (an empty setting is off). */
  isOn(value: (suffix: string) => string): boolean;
  /** Sent as e-mail: needs EMAIL_FROM and has no HTTP status. */
  email: boolean;
  /** Its failures pause it (ADR 038); false where each delivery goes to another mailbox. */
  pausable: boolean;
  /** Once delivered (or settled as not sent) it is never queued again: a person was promised at most one. */
  once?: boolean;
  /** A new console form gets it (its settings decide whether it is on). */
  onConsoleForms: boolean;
  /** Its shape in a form definition, strict. */
  definition(texts: DefinitionTexts): ZodObject;
  /** Its section in docs/destinations.md. */
  docs: string;
  /**
   * Per-form texts the owner writes (the form editor's section, the definition's keys, translated per
   * language); the kind is in a form's definition exactly when one of them is set.
   */
  texts?: { legend: string; intro: string; fields: readonly KindText[] };
}
