import { redirect, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/cloudflare";
import { Link, useLoaderData } from "@remix-run/react";
import { PasskeySignIn } from "~/components/passkey-sign-in";
import { findUser, safeNext } from "~/lib/auth/admin-user.server";
import { consoleRoute } from "~/lib/console/route.server";
import { pageMeta } from "~/lib/text/page-meta";

// Signing in with a passkey (docs/people.md), a page of its own so the password page stays within its
// JS budget: the WebAuthn library comes only with this one.

export const meta: MetaFunction = () => pageMeta("Sign in with a passkey", "Sign in to the Gatepost console with a passkey.");

export const loader = consoleRoute(async ({ request, context }: LoaderFunctionArgs) => {
  const next = safeNext(new URL(request.url).searchParams.get("next"));
  // Already signed in: straight on, as from the password page.
  if (await findUser(request, context)) throw redirect(next, 303);
  return { next };
});

export default function PasskeyLogin() {
  const { next } = useLoaderData<typeof loader>();
  return (
    <div className="sign-in">
      <h1>Sign in with a passkey</h1>
      <p className="lead">Your browser asks for this device&apos;s screen lock or your security key.</p>
      <PasskeySignIn next={next} />
      <p>
        <Link to={`/admin/login?next=${encodeURIComponent(next)}`}>Sign in with your e-mail and password instead</Link>
      </p>
    </div>
  );
}
