import { z } from "zod";
import { json, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/cloudflare";
import { Form, useActionData, useLoaderData } from "@remix-run/react";
import { PasskeyRegister } from "~/components/admin/passkey-register";
import { requireSameOrigin, requireUser } from "~/lib/auth/admin-user.server";
import { adminHeaders, adminMeta, formatUtc } from "~/lib/console/page";
import { readAdminForm } from "~/lib/console/input.server";
import { consoleRoute } from "~/lib/console/route.server";
import { ERRORS } from "~/lib/http/errors";
import { refusal } from "~/lib/http/responses.server";
import {
  CeremonyResponseSchema,
  PasskeyNameSchema,
  registerPasskey,
  registrationOptions,
  relyingPartyOf,
} from "~/lib/people/passkeys.server";
import { auditStatement } from "~/lib/storage/audit-log.server";
import { deletePasskeyStatement, listPasskeys, renamePasskeyStatement } from "~/lib/storage/passkeys.server";
import { findLivePerson } from "~/lib/storage/people.server";

// A person's own passkeys (docs/people.md): add (the browser's ceremony), rename, remove. Anyone with a
// personal account, viewers too; the shared passwords have none.
export const headers = adminHeaders;
export const meta: MetaFunction = () => adminMeta("Passkeys", "Your passkeys for signing in to this console.");

export const loader = consoleRoute(async ({ request, context }: LoaderFunctionArgs) => {
  const user = await requireUser(request, context);
  const keys = user.personId ? await listPasskeys(context.cloudflare.env.DB, user.personId) : null;
  return {
    keys:
      keys?.map((k) => ({
        id: k.id,
        name: k.name,
        createdAt: new Date(k.created_at).toISOString(),
        lastUsedAt: k.last_used_at === null ? null : new Date(k.last_used_at).toISOString(),
      })) ?? null,
  };
});

const IdSchema = z.string().min(1).max(1024);
const PostSchema = z.discriminatedUnion("intent", [
  z.object({ intent: z.literal("options") }),
  z.object({ intent: z.literal("register"), name: PasskeyNameSchema, response: z.string().max(8192) }),
  z.object({ intent: z.literal("rename"), id: IdSchema, name: PasskeyNameSchema }),
  z.object({ intent: z.literal("remove"), id: IdSchema }),
]);

export const action = consoleRoute(async ({ request, context }: ActionFunctionArgs) => {
  if (request.method !== "POST") throw refusal("method_not_allowed");
  requireSameOrigin(request);
  const user = await requireUser(request, context, "data");
  if (!user.personId || user.via === "token") throw refusal("passkey_needs_person");
  const post = await readAdminForm(request, PostSchema);
  const db = context.cloudflare.env.DB;
  const nowMs = context.now();
  const rp = relyingPartyOf(request, context.settings.publicUrl);
  if (post.intent === "options") {
    const person = await findLivePerson(db, user.personId);
    if (!person) throw refusal("admin_unauthenticated");
    return json({ ok: true, message: null, options: await registrationOptions(db, person, rp, nowMs) });
  }
  if (post.intent === "register") {
    const parsed = CeremonyResponseSchema.safeParse(safeJson(post.response));
    const made = parsed.success
      ? await registerPasskey({ db, user, request, nowMs }, rp, { personId: user.personId, name: post.name, response: parsed.data })
      : ({ ok: false, code: "passkey_failed" } as const);
    if (!made.ok) return json({ ok: false, message: ERRORS[made.code].message, options: null }, { status: ERRORS[made.code].status });
    return json({ ok: true, message: `Passkey “${post.name}” added: sign in with it from now on.`, options: null });
  }
  const change =
    post.intent === "rename"
      ? renamePasskeyStatement(db, user.personId, post.id, post.name)
      : deletePasskeyStatement(db, user.personId, post.id);
  const [done] = await db.batch([
    change,
    auditStatement(db, { user, request, action: `passkey.${post.intent}`, ifChanged: true, target: post.id, nowMs }),
  ]);
  const message =
    done.results.length === 0
      ? "There is no such passkey."
      : post.intent === "rename"
        ? "Renamed."
        : "Removed: it signs nobody in from now on.";
  return json({ ok: done.results.length > 0, message, options: null });
});

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

export default function Passkeys() {
  const { keys } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  if (keys === null) {
    return (
      <>
        <h1>Passkeys</h1>
        <p>{ERRORS.passkey_needs_person.message} An admin invites you under People.</p>
      </>
    );
  }
  return (
    <>
      <h1>Passkeys</h1>
      <p>A passkey signs you in with this device&apos;s screen lock or a security key, and cannot be phished. Keep one per device.</p>
      <div role="status" aria-live="polite">
        {result?.message ? <p className={result.ok ? "notice ok" : "notice error"}>{result.message}</p> : null}
      </div>
      {keys.length > 0 ? (
        <ul className="passkeys">
          {keys.map((k) => (
            <li key={k.id}>
              <Form method="post" className="inline">
                <input type="hidden" name="id" value={k.id} />
                <label>
                  <span className="visually-hidden">Name of {k.name}</span>
                  <input name="name" defaultValue={k.name} maxLength={60} required />
                </label>
                <button type="submit" name="intent" value="rename" className="secondary" aria-label={`Rename ${k.name}`}>
                  Rename
                </button>
                <button type="submit" name="intent" value="remove" className="secondary" aria-label={`Remove ${k.name}`}>
                  Remove
                </button>
                <span className="small">
                  {" "}
                  added {formatUtc(k.createdAt)}, last used {k.lastUsedAt ? formatUtc(k.lastUsedAt) : "never"}
                </span>
              </Form>
            </li>
          ))}
        </ul>
      ) : (
        <p>No passkeys yet.</p>
      )}
      <PasskeyRegister />
    </>
  );
}
