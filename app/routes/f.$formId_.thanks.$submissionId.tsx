import { json, type HeadersFunction, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/cloudflare";
import { Link, useLoaderData } from "@remix-run/react";
import { StorageGuard } from "~/components/storage-guard";
import { catalogFormSettings, findForm } from "~/lib/forms/live.server";
import { embedHeaders, embedQuery, embedViewOf } from "~/lib/embed/framed-page.server";
import { allowedOriginsFor } from "~/lib/settings/form-guards.server";
import { pageMeta } from "~/lib/text/page-meta";
import { refusal } from "~/lib/http/responses.server";
import { storageCodeOf, tryD1 } from "~/lib/storage/d1-failure.server";
import { getSubmission } from "~/lib/storage/submissions.server";
import { messagesOf, pageLanguage, refusalPage } from "~/lib/i18n/catalogue.server";
import { chooseLanguage, isLang } from "~/lib/text/languages";
import { languagesOf, localizeForm } from "~/lib/i18n/localize-form";
import { fill } from "~/lib/text/fill";

// No noindex: the URL is unguessable and never linked, and the Lighthouse target asks for SEO 100 here.
export const meta: MetaFunction<typeof loader> = ({ data }) =>
  data ? pageMeta(data.thanks.title, fill(data.thanks.description, { title: data.title })) : pageMeta("Received", "Submission received.");

// The Get of Post/Redirect/Get, in the submission's language unless ?lang= asks for another the form offers.
export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const found = await findForm(context, params.formId);
  if (!found.ok) throw refusal(found.code);
  const offered = languagesOf(found.live.form);
  const read = await tryD1(() => getSubmission(context.cloudflare.env.DB, found.live.form.id, params.submissionId ?? ""));
  if (!read.ok) throw refusal(storageCodeOf(read, "thanks page"));
  const submission = read.value;
  const kept = submission && isLang(submission.lang) && offered.includes(submission.lang) ? submission.lang : offered[0]!;
  const query = new URL(request.url).searchParams;
  const lang = query.has("lang") ? chooseLanguage(offered, query, request.headers.get("accept-language")) : kept;
  if (!submission) throw refusal("not_found", refusalPage("not_found", lang));
  const form = localizeForm(found.live.form, lang);
  const allowed = allowedOriginsFor(form, catalogFormSettings(context.settings, found.catalog));
  const view = embedViewOf(query, allowed);
  return json(
    {
      title: form.title,
      formId: form.id,
      message: form.successMessage,
      reference: submission.id,
      i18n: pageLanguage(lang),
      thanks: messagesOf(lang).thanks,
      embed: view.embed,
      embedParent: view.parent,
      embedQuery: embedQuery(view),
    },
    { headers: embedHeaders(view, allowed) },
  );
}

export const headers: HeadersFunction = ({ loaderHeaders }) => loaderHeaders;

export default function Thanks() {
  const { title, formId, message, reference, i18n, thanks, embed, embedQuery } = useLoaderData<typeof loader>();
  // Another submission starts in the same language, framed when this page is.
  const again = `/f/${formId}${embedQuery || "?"}${embedQuery ? "&" : ""}lang=${i18n.lang}`;
  return (
    <>
      {embed ? <StorageGuard /> : null}
      <div className="done-mark" aria-hidden="true">
        <svg viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="3" strokeLinecap="round" strokeLinejoin="round">
          <path d="M5 12.5l4.5 4.5L19 7.5" />
        </svg>
      </div>
      {/* The thanks are the owner's words (successMessage); the heading only says what happened. */}
      <h1>{thanks.title}</h1>
      <p className="lead">{message}</p>
      <h2>{thanks.next}</h2>
      <ol className="steps">
        <li>{fill(thanks.stepStored, { title })}</li>
        <li>{thanks.stepHandedOver}</li>
        <li>{thanks.stepDone}</li>
      </ol>
      <div className="reference-box">
        <span>{thanks.reference}</span>
        <span className="reference">{reference}</span>
      </div>
      <p className="small">{thanks.keepReference}</p>
      <p className="links">
        <Link to={again}>{thanks.another}</Link>
        {embed ? null : <Link to="/">{thanks.allForms}</Link>}
      </p>
    </>
  );
}
