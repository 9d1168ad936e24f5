import { z } from "zod";
import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { requireSameOrigin, safeNext } from "~/lib/auth/admin-user.server";
import { readAdminForm } from "~/lib/console/input.server";
import { consoleRoute } from "~/lib/console/route.server";
import { ERRORS } from "~/lib/http/errors";
import { ERROR_CODE_HEADER } from "~/lib/http/responses.server";
import { signInWithPasskey } from "~/lib/people/passkey-sign-in.server";
import { CeremonyResponseSchema, relyingPartyOf, signInOptions } from "~/lib/people/passkeys.server";

// POST /admin/passkey — the sign-in page's passkey (docs/people.md): without `response`, the options
// (a challenge kept five minutes); with the browser's answer, the session. Public like the sign-in page.

const PasskeyFormSchema = z.object({ response: z.string().max(8192).optional(), next: z.string().optional().catch(undefined) });
const NO_STORE = { "Cache-Control": "private, no-store" };

export const action = consoleRoute(async ({ request, context }: ActionFunctionArgs) => {
  requireSameOrigin(request);
  const form = await readAdminForm(request, PasskeyFormSchema);
  const rp = relyingPartyOf(request, context.settings.publicUrl);
  const db = context.cloudflare.env.DB;
  if (form.response === undefined) return Response.json({ options: await signInOptions(db, rp, context.now()) }, { headers: NO_STORE });
  let answer: unknown = null;
  try {
    answer = CeremonyResponseSchema.parse(JSON.parse(form.response));
  } catch {
    answer = null;
  }
  const result = answer
    ? await signInWithPasskey(request, context, rp, answer, context.now())
    : ({ ok: false, code: "passkey_failed" } as const);
  if (!result.ok) {
    const { status, message } = ERRORS[result.code];
    return Response.json({ code: result.code, message }, { status, headers: { ...NO_STORE, [ERROR_CODE_HEADER]: result.code } });
  }
  const headers = new Headers(NO_STORE);
  for (const cookie of result.cookies) headers.append("Set-Cookie", cookie);
  return Response.json({ next: safeNext(form.next) }, { headers });
});
