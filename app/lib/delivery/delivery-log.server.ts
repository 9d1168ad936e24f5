// Read side of the outbox for the admin timeline: each delivery of a submission with every attempt,
// parsed from D1's untyped rows.

export type DeliveryStatus = "pending" | "delivered" | "dead";

export interface AttemptView {
  attemptedAt: string;
  httpStatus: number | null;
  /** null on success; else timeout, network, redirect, http_status or config. */
  error: string | null;
  latencyMs: number;
  responseExcerpt: string | null;
}

export interface DeliveryView {
  /** The webhook-id receivers see. */
  id: string;
  submissionId: string;
  formId: string;
  destination: string;
  status: DeliveryStatus;
  attempts: number;
  /** Epoch ms of the next try while pending; null otherwise. */
  nextAttemptAt: number | null;
  lastError: string | null;
  createdAt: string;
  deliveredAt: string | null;
  log: AttemptView[];
}

/** The deliveries of one submission with their attempts, oldest first. Throws only if D1 fails. */
export async function readDeliveryLog(db: D1Database, submissionId: string): Promise<DeliveryView[]> {
  const [deliveries, attempts] = await db.batch<Record<string, unknown>>([
    db.prepare("SELECT * FROM deliveries WHERE submission_id = ?1 ORDER BY created_at, destination").bind(submissionId),
    db
      .prepare(
        `SELECT a.* FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
         WHERE d.submission_id = ?1 ORDER BY a.id`,
      )
      .bind(submissionId),
  ]);
  return deliveries.results.map((row) => {
    const status = parseStatus(row.status);
    return {
      id: String(row.id),
      submissionId: String(row.submission_id),
      formId: String(row.form_id),
      destination: String(row.destination),
      status,
      attempts: Number(row.attempts),
      nextAttemptAt: status === "pending" ? Number(row.next_attempt_at) : null,
      lastError: nullableText(row.last_error),
      createdAt: String(row.created_at),
      deliveredAt: nullableText(row.delivered_at),
      log: attempts.results
        .filter((a) => a.delivery_id === row.id)
        .map((a) => ({
          attemptedAt: String(a.attempted_at),
          httpStatus: typeof a.http_status === "number" ? a.http_status : null,
          error: nullableText(a.error),
          latencyMs: Number(a.latency_ms),
          responseExcerpt: nullableText(a.response_excerpt),
        })),
    };
  });
}

function parseStatus(value: unknown): DeliveryStatus {
  return value === "delivered" || value === "dead" ? value : "pending";
}

function nullableText(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}
