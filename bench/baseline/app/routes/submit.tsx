import { redirect, type ActionFunctionArgs } from "@remix-run/cloudflare";

// The least a captcha-checked form can do: one siteverify call, then one D1 insert. The submit-path
// benchmark compares Gatepost's /f/contact action with this.
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
  const fields = { name: form.get("name"), email: form.get("email"), message: form.get("message") };
  await env.DB.prepare("INSERT INTO submissions (id, form_id, fields, received_at) VALUES (?1, ?2, ?3, ?4)")
    .bind(id, "contact", JSON.stringify(fields), new Date().toISOString())
    .run();
  return redirect(`/?sent=${id}`, 303);
}
