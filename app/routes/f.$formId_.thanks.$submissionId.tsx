import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { Link, useLoaderData } from "@remix-run/react";
import { findForm } from "~/forms/registry";
import { pageMeta } from "~/lib/http/meta";
import { refusal } from "~/lib/http/responses.server";
import { getSubmission } from "~/lib/storage/submissions.server";

// No robots noindex: the page is only reachable through its unguessable, never-linked URL (and
// Referrer-Policy keeps that URL from leaking), and issue 6 asks for a Lighthouse SEO score of 100 here.
export const meta: MetaFunction<typeof loader> = ({ data }) =>
  pageMeta("Thank you", data ? `What you sent through "${data.title}" was received.` : "Submission received.");

// The Get of Post/Redirect/Get: a reload shows the same page and never re-sends the form.
export async function loader({ params, context }: LoaderFunctionArgs) {
  const form = findForm(params.formId);
  if (!form) throw refusal("form_not_found");
  const submission = await getSubmission(context.cloudflare.env.DB, form.id, params.submissionId ?? "");
  if (!submission) throw refusal("not_found");
  return { title: form.title, formId: form.id, message: form.successMessage, reference: submission.id };
}

export default function Thanks() {
  const { formId, message, reference } = useLoaderData<typeof loader>();
  return (
    <>
      <h1>Thank you</h1>
      <p>{message}</p>
      <p>
        Your reference: <span className="reference">{reference}</span>
      </p>
      <p>Keep it if you need to ask us about what you sent.</p>
      <p>
        <Link to={`/f/${formId}`}>Send another</Link> · <Link to="/">Home</Link>
      </p>
    </>
  );
}
