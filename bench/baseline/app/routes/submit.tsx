import { redirect, type ActionFunctionArgs } from "@remix-run/cloudflare";

// The least a captcha-checked form can do: one siteverify call, then one D1 insert. The accept
// measurement (bench/measure/accept.mjs) compares Gatepost's /f/contact action with this.
//
// /submit?delivered is the reference for a form with a webhook: the bare action, then, after its
// answer (waitUntil), one delivery signed as Standard Webhooks sign it and one D1 write of its outcome.
// No retries, no outbox: the least a form that forwards what it stores must do. A query switch rather
// than a second route, so the bare app's route table (and its SSR and JS figures) stays the template's.
//
// /submit?upload is the reference for a form that takes a file (bench/measure/upload.mjs): the same
// verify, then the file's bytes put in R2 (the UPLOADS binding, as Gatepost's) before the one insert.
export async function action({ request, context }: ActionFunctionArgs) {
  const env = context.cloudflare.env;
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
  if (new URL(request.url).searchParams.has("upload")) {
    const file = form.get("cv");
    if (!(file instanceof File)) return new Response("no file", { status: 400 });
    const key = `${id}/${crypto.randomUUID()}`;
    await env.UPLOADS.put(key, await file.arrayBuffer(), { httpMetadata: { contentType: file.type } });
    fields.cv = { key, name: file.name, type: file.type, size: file.size };
  }
  await env.DB.prepare("INSERT INTO submissions (id, form_id, fields, received_at) VALUES (?1, ?2, ?3, ?4)")
    .bind(id, "contact", JSON.stringify(fields), new Date().toISOString())
    .run();
  if (new URL(request.url).searchParams.has("delivered")) {
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
