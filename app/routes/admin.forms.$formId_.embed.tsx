import { z } from "zod";
import { json, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/cloudflare";
import { Form, Link, useActionData, useLoaderData, useRouteLoaderData } from "@remix-run/react";
import { requireAdminAction, requireUser } from "~/lib/auth/admin-user.server";
import { consoleRoute } from "~/lib/console/route.server";
import { checkEmbedSites, environmentEmbeds, saveEmbedSites } from "~/lib/embed/allowed-sites.server";
import { embedScriptTag, staticFormHtml } from "~/lib/embed/snippets.server";
import { adminHeaders, adminMeta } from "~/lib/console/page";
import { formIdParam, readAdminForm } from "~/lib/console/input.server";
import { formCatalog } from "~/lib/forms/live.server";
import { ERRORS } from "~/lib/http/errors";
import { ERROR_CODE_HEADER, refusal } from "~/lib/http/responses.server";
import { readEmbedSites } from "~/lib/storage/embed-sites.server";
import type { loader as layoutLoader } from "~/routes/admin";

// One form's embeds (docs/forms.md#embed-on-your-site): its published definition as HTML for a static
// site, the one-line script tag of /embed.js, and the sites allowed to embed it, for console and code
// forms alike. What the environment sets wins and shows here read-only (ADR 076).

export const headers = adminHeaders;
export const meta: MetaFunction<typeof loader> = ({ data }) =>
  adminMeta(data ? `Embed ${data.id}` : "Embed", "Put a form on another site: its HTML, a script tag, and the sites allowed to embed it.");

export const loader = consoleRoute(async ({ request, params, context }: LoaderFunctionArgs) => {
  await requireUser(request, context);
  const id = formIdParam(params.formId);
  const catalog = await formCatalog(context);
  const live = catalog.forms.get(id);
  if (!live) throw refusal("form_not_found");
  const { settings } = context;
  const site = {
    origin: settings.publicUrl ?? new URL(request.url).origin,
    siteKey: settings.turnstile.siteKey,
    scriptUrl: settings.turnstile.scriptUrl,
  };
  const current = await readEmbedSites(context.cloudflare.env.DB, id);
  return {
    id,
    title: live.form.title,
    html: staticFormHtml(live.form, site),
    script: embedScriptTag(live.form, site),
    current,
    environment: environmentEmbeds(settings, id),
    defined: live.form.allowedOrigins,
  };
});

const PostSchema = z.object({ origins: z.string().max(10_000).default(""), hostnames: z.string().max(10_000).default("") });

export const action = consoleRoute(async ({ request, params, context }: ActionFunctionArgs) => {
  const user = await requireAdminAction(request, context);
  const id = formIdParam(params.formId);
  const catalog = await formCatalog(context);
  if (!catalog.forms.has(id)) throw refusal("form_not_found");
  const typed = await readAdminForm(request, PostSchema);
  const checked = checkEmbedSites(typed, { allowLoopbackHttp: context.settings.allowLoopbackHttp });
  if (!checked.ok) {
    const { status, message } = ERRORS[checked.code];
    return json({ ok: false, message, problems: checked.problems }, { status, headers: { [ERROR_CODE_HEADER]: checked.code } });
  }
  const ctx = { db: context.cloudflare.env.DB, settings: context.settings, user, request, nowMs: Date.now() };
  await saveEmbedSites(ctx, id, checked.sites, await readEmbedSites(ctx.db, id));
  return json({ ok: true, message: "Saved: the sites listed may embed this form now.", problems: [] as string[] });
});

function Snippet({ id, title, hint, text }: { id: string; title: string; hint: string; text: string }) {
  return (
    <section aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{title}</h2>
      <p className="small" id={`${id}-hint`}>
        {hint}
      </p>
      <textarea
        id={id}
        className="control snippet"
        readOnly
        value={text}
        rows={Math.min(16, text.split("\n").length + 1)}
        aria-labelledby={`${id}-title`}
        aria-describedby={`${id}-hint`}
        spellCheck={false}
      />
    </section>
  );
}

/** One list of sites, read-only where the environment sets it (and wins) or for a viewer. */
function SiteList(props: {
  name: string;
  label: string;
  hint: string;
  variable: string;
  environment: readonly string[] | null;
  current: readonly string[];
  editable: boolean;
}) {
  const { name, label, hint, variable, environment, current, editable } = props;
  return (
    <div className="field">
      <label htmlFor={name}>{label}</label>
      <span className="hint" id={`${name}-hint`}>
        {environment ? `Set by the environment (${variable}), which wins: ${environment.join(" ")}.` : hint}
      </span>
      <textarea
        id={name}
        name={name}
        className="control"
        rows={3}
        defaultValue={current.join("\n")}
        readOnly={!editable || environment !== null}
        aria-describedby={`${name}-hint`}
        spellCheck={false}
      />
    </div>
  );
}

export default function Embed() {
  const { id, title, html, script, current, environment, defined } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const admin = useRouteLoaderData<typeof layoutLoader>("routes/admin")?.user.role === "admin";
  return (
    <>
      <p className="small">
        <Link to={`/admin/forms/${id}`}>{title}</Link>
      </p>
      <h1>Embed</h1>
      <p>
        Put <code>{id}</code> on another site. Both ways use the form&apos;s published version; list the site below first, or its visitors
        cannot send.
      </p>
      <Snippet
        id="embed-script"
        title="One line: a frame of the form"
        hint="Paste where the form should appear. It shows the form's own page, sized to its content, so a new version needs no new paste."
        text={script}
      />
      <Snippet
        id="embed-html"
        title="The form as HTML"
        hint="For a static site: the fields, the captcha and a script that shows the answer in place. Without that script it still posts, and the visitor lands on the thank-you page. Copy it again after publishing a new version."
        text={html}
      />
      <h2 id="sites-title">Sites allowed to embed it</h2>
      <div role="status" aria-live="polite">
        {result ? <p className={result.ok ? "notice ok" : "notice error"}>{result.message}</p> : null}
        {result && result.problems.length > 0 ? (
          <ul className="problems">
            {result.problems.map((problem) => (
              <li key={problem}>{problem}</li>
            ))}
          </ul>
        ) : null}
      </div>
      {defined.length > 0 ? <p className="small">{`The form's definition allows ${defined.join(", ")} too.`}</p> : null}
      <Form method="post" className="editor" aria-labelledby="sites-title">
        <SiteList
          name="origins"
          label="Origins that may frame and post to the form"
          environment={environment.origins}
          variable="FORM_ALLOWED_ORIGINS"
          hint="One per line, like https://www.example.org: scheme and host, no path."
          current={current.origins}
          editable={admin}
        />
        <SiteList
          name="hostnames"
          label="Hostnames the captcha may be solved on"
          environment={environment.hostnames}
          variable="TURNSTILE_ALLOWED_HOSTNAMES"
          hint="For the HTML form: the hostname of each site it is on, like www.example.org. Add it to your Turnstile widget's hostnames too."
          current={current.hostnames}
          editable={admin}
        />
        {admin ? <button type="submit">Save the sites</button> : null}
      </Form>
    </>
  );
}
