import type { FormDef } from "~/forms/schema";
import { configuredDestinations } from "~/lib/destinations/configured.server";
import type { BatchGate } from "~/lib/destinations/sender.server";
import { senderOf, SENDERS } from "~/lib/destinations/senders.server";
import type { Settings } from "~/lib/settings/settings.server";
import type { Prune } from "~/lib/storage/sql.server";

// What the accept batch and the cron ask of the kinds that keep limits of their own (ADR 025, 114),
// without naming one: each kind's sender says whether it has a gate and stale rows.

/** The gate of the one configured kind the accept batch holds to limits, or null. Never throws. */
export async function batchGate(
  settings: Settings,
  form: FormDef,
  fields: Readonly<Record<string, unknown>>,
  ip: string | null,
): Promise<BatchGate | null> {
  for (const destination of configuredDestinations(settings, form)) {
    const gate = await senderOf(destination.kind)?.gate?.(settings, form, fields, ip);
    if (gate) return gate;
  }
  return null;
}

/** Every kind's rows past use, for the cron's prune job. */
export function staleKindRows(nowMs: number): Prune[] {
  return SENDERS.flatMap((sender) => (sender.stale ? [sender.stale(nowMs)] : []));
}
