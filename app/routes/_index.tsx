import { json, type HeadersFunction, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/cloudflare";
import { Link, useLoaderData, useRouteLoaderData } from "@remix-run/react";
import { formCatalog } from "~/lib/forms/live.server";
import { pageMeta } from "~/lib/text/page-meta";
import { messagesOf, pageLanguage } from "~/lib/i18n/catalogue.server";
import { localizeForm } from "~/lib/i18n/localize-form";
import { chooseLanguage, LANGUAGES } from "~/lib/text/languages";
import type { loader as rootLoader } from "~/root";

export const meta: MetaFunction<typeof loader> = ({ data }) => (data ? pageMeta(data.home.title, data.home.description) : []);

export const headers: HeadersFunction = ({ loaderHeaders }) => loaderHeaders;

// The front page speaks the visitor's language as a form's pages do: ?lang= first, then Accept-Language,
// among every language Gatepost writes. Each form is listed in that language where its owner wrote it.
export async function loader({ request, context }: LoaderFunctionArgs) {
  const query = new URL(request.url).searchParams;
  const lang = chooseLanguage(LANGUAGES, query, request.headers.get("accept-language"));
  const catalog = await formCatalog(context);
  const listed = [...catalog.forms.values()]
    .filter((live) => live.form.public && !live.archived)
    .map((live) => localizeForm(live.form, lang));
  const forms = listed.sort((a, b) => (a.id < b.id ? -1 : 1)).map(({ id, title, description }) => ({ id, title, description }));
  // A language asked for by ?lang= is passed on, so a form opens in it too where it offers it.
  const formQuery = query.has("lang") ? `?lang=${lang}` : "";
  return json({ i18n: pageLanguage(lang), home: messagesOf(lang).home, forms, formQuery }, { headers: { Vary: "Accept-Language" } });
}

export default function Index() {
  const { forms, home, formQuery } = useLoaderData<typeof loader>();
  const name = useRouteLoaderData<typeof rootLoader>("root")?.site.name ?? "Gatepost";
  return (
    <>
      <h1>{name}</h1>
      <p className="lead">{home.lead}</p>
      {forms.length > 0 ? (
        <ul className="forms">
          {forms.map((form) => (
            <li key={form.id}>
              <Link to={`/f/${form.id}${formQuery}`}>
                <span className="title">{form.title}</span>
                <span className="description">{form.description}</span>
              </Link>
            </li>
          ))}
        </ul>
      ) : (
        <div className="empty">
          <strong>{home.noForms}</strong>
          <p>{home.noFormsHint}</p>
        </div>
      )}
    </>
  );
}
