import type { AttemptRecord } from "~/lib/sending/attempt.server";
import { resolveDestination } from "~/lib/destinations/configured.server";
import { held, type KindAttempt } from "~/lib/destinations/sender.server";
import { senderOf } from "~/lib/destinations/senders.server";
import { attemptHook } from "~/lib/hooks/deliver.server";
import { isHookDestination, type HookRow } from "~/lib/hooks/subscriptions.server";

// One attempt at one delivery, whatever its kind: resolve the destination from settings (at attempt
// time, so a fixed setting heals queued rows), then let its kind's module build and send it once.

export type { KindAttempt };

/** Sends one delivery once. Never throws except when D1 fails (the confirmation limit). */
export async function attemptKind(input: KindAttempt, hooks?: ReadonlyMap<string, HookRow>): Promise<AttemptRecord> {
  const hook = input.claim.destination;
  if (isHookDestination(hook)) return attemptHook(input, hooks ? (hooks.get(hook) ?? null) : undefined);
  const target = resolveDestination(input.settings, input.form, input.claim.destination);
  const sender = target.ok ? senderOf(target.destination.kind) : undefined;
  if (!target.ok || !sender) {
    const reason = target.ok ? `no destination kind is called "${target.destination.kind}"` : target.reason;
    console.error(`delivery ${input.claim.id} is held: ${reason}`);
    return held(reason);
  }
  return sender.attempt(target.destination, input);
}
