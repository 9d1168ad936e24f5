import type { z } from "zod";
import { airtable } from "~/lib/destinations/airtable/spec";
import { confirmation } from "~/lib/destinations/confirmation/spec";
import { discord } from "~/lib/destinations/discord/spec";
import { email } from "~/lib/destinations/email/spec";
import { googleChat } from "~/lib/destinations/googlechat/spec";
import type { KindSetting, KindSpec } from "~/lib/destinations/kind";
import { sheets } from "~/lib/destinations/sheets/spec";
import { slack } from "~/lib/destinations/slack/spec";
import { teams } from "~/lib/destinations/teams/spec";
import { telegram } from "~/lib/destinations/telegram/spec";
import { webhook } from "~/lib/destinations/webhook/spec";

// Every destination kind, one line each: the only list of kinds, in the console's order (ADR 114).
// docs/destinations/adding-a-kind.md is the recipe.

const SPECS = [
  webhook,
  email,
  slack,
  discord,
  googleChat,
  teams,
  telegram,
  confirmation,
  sheets,
  airtable,
] as const satisfies readonly KindSpec[];

/** A destination in a form definition, as each kind's `definition` checks it: the union over the kinds. */
export type Destination = DefinitionOf<(typeof SPECS)[number]>;
type DefinitionOf<S> = S extends { definition(...texts: never[]): infer Shape extends z.ZodType } ? z.infer<Shape> : never;

export type DestinationKind = Destination["kind"];

export const KIND_SPECS: readonly (KindSpec & { kind: DestinationKind })[] = SPECS;

/** What a form's settings are called after its prefix, every kind's. */
export type FormSettingSuffix = (typeof SPECS)[number]["settings"][number]["suffix"];

export const FORM_SETTING_SUFFIXES = KIND_SPECS.flatMap((spec) =>
  spec.settings.map((setting) => setting.suffix),
) as readonly FormSettingSuffix[];

/** A kind's spec; undefined for a name no kind has (an old outbox row, a typo in a request). */
export function kindSpec(kind: string): (typeof KIND_SPECS)[number] | undefined {
  return KIND_SPECS.find((spec) => spec.kind === kind);
}

/** The setting of that suffix, and its kind. */
export function settingSpec(suffix: string): { spec: KindSpec; setting: KindSetting } | undefined {
  for (const spec of KIND_SPECS) {
    const setting = spec.settings.find((s) => s.suffix === suffix);
    if (setting) return { spec, setting };
  }
  return undefined;
}

/** Every kind's name, in the registry's order. */
export const DESTINATION_KINDS: readonly DestinationKind[] = KIND_SPECS.map((spec) => spec.kind);
