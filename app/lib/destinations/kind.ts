import type { ZodObject, ZodType } from "zod";

// What a destination kind is, apart from how it sends: each kind's <kind>/spec.ts, listed in registry.ts (ADR 114).
// Client-safe: the console renders it.

/** A typed value as delivery will read it, or why it cannot be used, in words for whoever typed it. */
export type SettingCheck = { ok: true; value: string } | { ok: false; message: string };

export interface SettingCheckContext {
  allowLoopbackHttp: boolean;
}

/** Where `npm start` sends a console form's unset destinations (ADR 066). */
export interface SinkAddress {
  origin: string;
  secret: string;
  sheetsKey?: string | null;
}

export interface KindSetting {
  /** After the form's prefix: suffix `X_URL` is CONTACT_X_URL for form contact. */
  suffix: string;
  title: string;
  input: string;
  hint: string;
  type: "url" | "text";
  maxLength?: number;
  /** What the console may show of a stored value: in full, a URL's host and last characters, or nothing. */
  shown: "full" | "url" | "never";
  check?(value: string, context: SettingCheckContext): SettingCheck;
  /** Why the environment's value cannot be used, for /healthz (the variable's name comes first); null when it can. */
  problem?(value: string, context: SettingCheckContext): string | null;
  wantsEmailFrom?(value: string): boolean;
  needs?: string;
  /** Under `npm start`, a console form's value while unset (`formId`: the form's); null where the sink has none to give. */
  local?(sink: SinkAddress, formId: string): string | null;
  /** Gatepost makes the value (a signing secret): never typed, shown once, rotated with an overlap (ADR 042). */
  generate?(): string;
  /** Gatepost can make an ed25519 key pair instead (ADR 120): the secret key is kept, the public key shown. */
  generatePair?(): Promise<{ secret: string; publicKey: string }>;
  toggle?: { value: string; on: string; off: string };
  /** The site-wide variable that stands in while a form's own is unset; `whileUnset`: the own setting that turns it off. */
  siteWide?: { variable: string; note: string; whileUnset?: string };
}

/** One of a kind's own texts in a form definition (a confirmation's subject), as the form editor asks for it. */
export interface KindText {
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
  label: string;
  idLabel?: string;
  testLabel: string | null;
  settings: readonly KindSetting[];
  isOn(value: (suffix: string) => string): boolean;
  email: boolean;
  /** Its failures pause it (ADR 071); false where each delivery goes to another mailbox. */
  pausable: boolean;
  /** Once delivered (or settled as not sent) it is never queued again: a person was promised at most one. */
  once?: boolean;
  onConsoleForms: boolean;
  definition(texts: DefinitionTexts): ZodObject;
  docs: string;
  /** Per-form texts the owner writes; the kind is in a definition exactly when one of them is set. */
  texts?: { legend: string; intro: string; fields: readonly KindText[] };
}
