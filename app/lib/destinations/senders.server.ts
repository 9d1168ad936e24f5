import { KIND_SPECS } from "~/lib/destinations/registry";
import type { KindSender } from "~/lib/destinations/sender.server";

// Each kind's sending half, found by Vite's glob in its folder and put in the registry's order (ADR 114).

const MODULES = import.meta.glob<{ sender: KindSender }>("./*/sender.server.ts", { eager: true });

export const SENDERS: readonly KindSender[] = KIND_SPECS.map((spec) => {
  const sender = MODULES[`./${spec.kind}/sender.server.ts`]?.sender;
  if (sender?.kind !== spec.kind) throw new Error(`the destination kind ${spec.kind} has no sender in ${spec.kind}/sender.server.ts`);
  return sender;
});

/** The sender of a kind; undefined for a name no kind has. */
export function senderOf(kind: string): KindSender | undefined {
  return SENDERS.find((sender) => sender.kind === kind);
}
