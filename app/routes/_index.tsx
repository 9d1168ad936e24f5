import type { MetaFunction } from "@remix-run/cloudflare";
import { Link, useLoaderData } from "@remix-run/react";
import { publicForms } from "~/forms/registry";
import { pageMeta } from "~/lib/http/meta";

export const meta: MetaFunction = () =>
  pageMeta("Forms you can trust", "Gatepost shows forms, checks each sender is human with Cloudflare Turnstile, and only then keeps and forwards what they sent.");

export function loader() {
  return { forms: publicForms().map(({ id, title, description }) => ({ id, title, description })) };
}

export default function Index() {
  const { forms } = useLoaderData<typeof loader>();
  return (
    <>
      <h1>Gatepost</h1>
      <p className="lead">
        A form gateway on the edge. Each form checks that you are human with Cloudflare Turnstile before
        anything you send is kept or passed on.
      </p>
      <h2>Forms</h2>
      <ul className="forms">
        {forms.map((form) => (
          <li key={form.id}>
            <Link to={`/f/${form.id}`}>{form.title}</Link> — {form.description}
          </li>
        ))}
      </ul>
    </>
  );
}
