import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { Link, useLoaderData, useRouteLoaderData } from "@remix-run/react";
import { formCatalog } from "~/lib/forms/live.server";
import { pageMeta } from "~/lib/http/meta";
import type { loader as rootLoader } from "~/root";

export const meta: MetaFunction = () =>
  pageMeta(
    "Forms you can trust",
    "Gatepost shows forms, checks each sender is human with Cloudflare Turnstile, and only then keeps and forwards what they sent.",
  );

export async function loader({ context }: LoaderFunctionArgs) {
  const catalog = await formCatalog(context);
  const listed = [...catalog.forms.values()].filter((live) => live.form.public && !live.archived).map((live) => live.form);
  return { forms: listed.sort((a, b) => (a.id < b.id ? -1 : 1)).map(({ id, title, description }) => ({ id, title, description })) };
}

export default function Index() {
  const { forms } = useLoaderData<typeof loader>();
  const name = useRouteLoaderData<typeof rootLoader>("root")?.site.name ?? "Gatepost";
  return (
    <>
      <h1>{name}</h1>
      <p className="lead">Each form checks that you are human with Cloudflare Turnstile before anything you send is kept or passed on.</p>
      {forms.length > 0 ? (
        <ul className="forms">
          {forms.map((form) => (
            <li key={form.id}>
              <Link to={`/f/${form.id}`}>
                <span className="title">{form.title}</span>
                <span className="description">{form.description}</span>
              </Link>
            </li>
          ))}
        </ul>
      ) : (
        <div className="empty">
          <strong>No public forms yet</strong>
          <p>Forms marked public, in app/forms/ or in the console, are listed here.</p>
        </div>
      )}
    </>
  );
}
