import { redirect, type ActionFunctionArgs } from "@remix-run/cloudflare";

// The least a captcha-checked form can do: one siteverify, one D1 insert (bench/measure/accept.mjs compares).
// ?delivered: then one signed webhook delivery after the answer and one D1 write of its outcome; ?upload: the file
// put in R2 before the insert; ?guarded: one batch that counts two windows and inserts only within them for a new
// key (ADR 012). Query switches, so the bare app's route table stays the template's.
export async function action({ request, context }: ActionFunctionArgs) {
  const env = context.cloudflare.env;
  const query = new URL(request.url).searchParams;
  const form = await request.formData();
  const body = new URLSearchParams({
    secret: env.TURNSTILE_SECRET_KEY,
    response: String(form.get("cf-turnstile-response") ?? ""),
  });
  const verdict = await fetch(env.TURNSTILE_VERIFY_URL, { method: "POST", body });
  const result = (await verdict.json()) as { success?: boolean };
  if (!result.success) return new Response("captcha failed", { status: 400 });
  const id = crypto.randomUUID();
  const fields: Record<string, unknown> = { name: form.get("name"), email: form.get("email"), message: form.get("message") };
  if (query.has("guarded")) {
    const stored = await insertGuarded(env.DB, request, id, JSON.stringify(fields), String(form.get("_sid") ?? id));
    return stored ? redirect(`/?sent=${id}`, 303) : new Response("limited or repeated", { status: 409 });
  }
  if (query.has("upload")) {
    const file = form.get("cv");
    if (!(file instanceof File)) return new Response("no file", { status: 400 });
    const key = `${id}/${crypto.randomUUID()}`;
    await env.UPLOADS.put(key, await file.arrayBuffer(), { httpMetadata: { contentType: file.type } });
    fields.cv = { key, name: file.name, type: file.type, size: file.size };
  }
  await env.DB.prepare("INSERT INTO submissions (id, form_id, fields, received_at) VALUES (?1, ?2, ?3, ?4)")
    .bind(id, "contact", JSON.stringify(fields), new Date().toISOString())
    .run();
  if (query.has("delivered")) {
    const payload = JSON.stringify({ type: "submission.created", data: { id, form: "contact", fields } });
    // The webhook's address and secret are bench bindings, not keys of Gatepost's Env.
    const bench = env as unknown as { DB: D1Database; BENCH_WEBHOOK_URL: string; BENCH_WEBHOOK_SECRET: string };
    context.cloudflare.ctx.waitUntil(deliverOnce(bench, id, payload));
  }
  return redirect(`/?sent=${id}`, 303);
}

/** One signed POST to the webhook, then one D1 write of what came back. Never throws. */
async function deliverOnce(
  env: { DB: D1Database; BENCH_WEBHOOK_URL: string; BENCH_WEBHOOK_SECRET: string },
  submissionId: string,
  payload: string,
) {
  const msgId = `msg_${crypto.randomUUID().replaceAll("-", "")}`;
  const timestamp = String(Math.floor(Date.now() / 1000));
  const secret = Uint8Array.from(atob(env.BENCH_WEBHOOK_SECRET.replace(/^whsec_/, "")), (c) => c.charCodeAt(0));
  const key = await crypto.subtle.importKey("raw", secret, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`${msgId}.${timestamp}.${payload}`));
  let status: number | null = null;
  try {
    const res = await fetch(env.BENCH_WEBHOOK_URL, {
      method: "POST",
      body: payload,
      headers: {
        "content-type": "application/json",
        "webhook-id": msgId,
        "webhook-timestamp": timestamp,
        "webhook-signature": `v1,${btoa(String.fromCharCode(...new Uint8Array(mac)))}`,
      },
      signal: AbortSignal.timeout(10_000),
    });
    status = res.status;
    await res.body?.cancel();
  } catch {
    // the delivery failed: status stays null, and the row below records it
  }
  const now = new Date().toISOString();
  await env.DB.prepare(
    `INSERT INTO deliveries (id, submission_id, form_id, destination, status, attempts, next_attempt_at, created_at, delivered_at)
     VALUES (?1, ?2, 'contact', 'webhook', ?3, 1, 0, ?4, ?5)`,
  )
    .bind(msgId, submissionId, status !== null && status < 300 ? "delivered" : "dead", now, now)
    .run()
    .catch(() => {});
}

/** Limits as high as the bench sets Gatepost's: counted, never reached. */
const LIMIT = 1_000_000_000;

/** Counts two windows, inserts only within them and for a new key, reads the key's holder: one batch. */
async function insertGuarded(db: D1Database, request: Request, id: string, fields: string, key: string): Promise<boolean> {
  const who = `form:contact:ip:${request.headers.get("cf-connecting-ip") ?? "unknown"}`;
  const nowS = Math.floor(Date.now() / 1000);
  const minute = nowS - (nowS % 60);
  const day = nowS - (nowS % 86_400);
  const within =
    "(SELECT count FROM rate_limits WHERE key = ?1 AND window_start = ?2) <= ?4 AND (SELECT count FROM rate_limits WHERE key = ?1 AND window_start = ?3) <= ?4";
  const [, inserted] = await db.batch([
    db
      .prepare(
        `INSERT INTO rate_limits (key, window_start, count) VALUES (?1, ?2, 1), (?1, ?3, 1)
         ON CONFLICT (key, window_start) DO UPDATE SET count = count + 1 RETURNING key, count`,
      )
      .bind(who, minute, day),
    db
      .prepare(
        `INSERT INTO submissions (id, form_id, fields, received_at, idempotency_key)
         SELECT ?5, 'contact', ?6, ?7, ?8 WHERE ${within}
           AND NOT EXISTS (SELECT 1 FROM submissions WHERE form_id = 'contact' AND idempotency_key = ?8)
         RETURNING id`,
      )
      .bind(who, minute, day, LIMIT, id, fields, new Date().toISOString(), key),
    db.prepare("SELECT id FROM submissions WHERE form_id = 'contact' AND idempotency_key = ?1").bind(key),
  ]);
  return inserted.results.length > 0;
}
