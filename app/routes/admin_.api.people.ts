import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { consoleRoute } from "~/lib/console/route.server";
import { apiRefusal, asProblem, readJsonBody, requireApiUser } from "~/lib/auth/api-auth.server";
import { invitePerson, inviteContextOf, NewPersonSchema } from "~/lib/people/invitations.server";
import { listPeopleViews } from "~/lib/people/people.server";

// GET /admin/api/people — everyone, invited, active and removed; POST {"email", "role"} — invite: 201
// {"id", "inviteUrl", "expiresAt"}, the link shown this once (docs/people.md). Admins only.

const NO_STORE = { "Cache-Control": "private, no-store" };

export const loader = consoleRoute(async ({ request, context }: LoaderFunctionArgs) => {
  try {
    await requireApiUser(request, context, "write");
    return Response.json({ people: await listPeopleViews(context.cloudflare.env.DB) }, { headers: NO_STORE });
  } catch (error) {
    return asProblem(error);
  }
});

export const action = consoleRoute(async ({ request, context }: ActionFunctionArgs) => {
  try {
    const user = await requireApiUser(request, context, "write");
    if (request.method !== "POST") throw apiRefusal("method_not_allowed");
    const parsed = NewPersonSchema.safeParse(await readJsonBody(request));
    if (!parsed.success) throw apiRefusal("person_invalid");
    const made = await invitePerson(inviteContextOf(context, user, request, context.now()), parsed.data);
    if (!made.ok) throw apiRefusal(made.code);
    const { id, inviteUrl, expiresAt, emailed } = made;
    return Response.json(
      { id, inviteUrl, expiresAt, emailed },
      { status: 201, headers: { ...NO_STORE, Location: `/admin/api/people/${id}` } },
    );
  } catch (error) {
    return asProblem(error);
  }
});
