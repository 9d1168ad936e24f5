import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { Link, useLoaderData } from "@remix-run/react";
import { findForm } from "~/lib/forms/live.server";
import { pageMeta } from "~/lib/http/meta";
import { refusal } from "~/lib/http/responses.server";
import { getSubmission } from "~/lib/storage/submissions.server";

// No robots noindex: the page is only reachable through its unguessable, never-linked URL (and
// Referrer-Policy keeps that URL from leaking), and the Lighthouse target (docs/performance.md) asks
// for an SEO score of 100 here.
export const meta: MetaFunction<typeof loader> = ({ data }) =>
  pageMeta("Received", data ? `What you sent through "${data.title}" was received.` : "Submission received.");

// The Get of Post/Redirect/Get: a reload shows the same page and never re-sends the form.
export async function loader({ params, context }: LoaderFunctionArgs) {
  const found = await findForm(context, params.formId);
  if (!found.ok) throw refusal(found.code);
  const form = found.live.form;
  const submission = await getSubmission(context.cloudflare.env.DB, form.id, params.submissionId ?? "");
  if (!submission) throw refusal("not_found");
  return { title: form.title, formId: form.id, message: form.successMessage, reference: submission.id };
}

export default function Thanks() {
  const { title, formId, message, reference } = useLoaderData<typeof loader>();
  return (
    <>
      <div className="done-mark" aria-hidden="true">
        <svg viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="3" strokeLinecap="round" strokeLinejoin="round">
          <path d="M5 12.5l4.5 4.5L19 7.5" />
        </svg>
      </div>
      {/* The thanks are the owner's own words (the form's successMessage, which usually starts with
          them); the heading only says what happened, so the page never says it twice. */}
      <h1>Received</h1>
      <p className="lead">{message}</p>
      <h2>What happens next</h2>
      <ol className="steps">
        <li>What you sent through “{title}” passed the human check and is stored safely.</li>
        <li>It is being handed to the people who look after this form now; if their system is busy, Gatepost keeps trying for you.</li>
        <li>There is nothing more to do: no need to send it again.</li>
      </ol>
      <div className="reference-box">
        <span>Your reference</span>
        <span className="reference">{reference}</span>
      </div>
      <p className="small">Keep the reference if you need to ask about what you sent.</p>
      <p className="links">
        <Link to={`/f/${formId}`}>Send another</Link>
        <Link to="/">All forms</Link>
      </p>
    </>
  );
}
