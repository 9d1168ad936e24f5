import { z } from "zod";
import { TokenSchema } from "~/lib/console/input.server";
import type { DestinationKind } from "~/forms/schema";
import { DESTINATION_KINDS } from "~/lib/destinations/registry";
import type { DeadFilter } from "~/lib/storage/delivery-requeue.server";

// What a bulk redelivery may be asked for: one form, optionally one kind and a range of creation times (docs/api.md).

export const REDELIVERABLE_KINDS = DESTINATION_KINDS as readonly [DestinationKind, ...DestinationKind[]];

const Instant = z.iso.datetime({ offset: true }).transform((value) => new Date(value).toISOString());

export const BulkRedeliverySchema = z
  .object({
    formId: TokenSchema,
    destination: z.enum(REDELIVERABLE_KINDS).optional(),
    from: Instant.optional(),
    to: Instant.optional(),
  })
  .strict()
  .refine((value) => !value.from || !value.to || value.from < value.to, { message: "from must be before to" });

/** The console's form as a request: datetime-local inputs carry no zone, and the console works in UTC. */
export function consoleRedelivery(formId: string, fields: { destination?: string; from?: string; to?: string }) {
  const instant = (value: string | undefined) =>
    !value
      ? undefined
      : /^\d{4}-\d\d-\d\dT\d\d:\d\d$/.test(value)
        ? `${value}:00Z`
        : /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/.test(value)
          ? `${value}Z`
          : value;
  return BulkRedeliverySchema.safeParse({
    formId,
    ...(fields.destination ? { destination: fields.destination } : {}),
    ...(fields.from ? { from: instant(fields.from) } : {}),
    ...(fields.to ? { to: instant(fields.to) } : {}),
  });
}

/** The storage filter of a parsed request. */
export function deadFilterOf(request: z.infer<typeof BulkRedeliverySchema>): DeadFilter {
  return { formId: request.formId, destination: request.destination ?? null, fromIso: request.from ?? null, toIso: request.to ?? null };
}
