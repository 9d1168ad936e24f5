import type { LinksFunction, MetaFunction } from "@remix-run/cloudflare";
import { isRouteErrorResponse } from "@remix-run/react";
import { Links, Meta, Outlet, Scripts, ScrollRestoration } from "@remix-run/react";
import type { ReactNode } from "react";
import { GeneralErrorBoundary } from "~/components/error-boundary";
import { useNonce } from "~/components/nonce";
import stylesHref from "~/styles.css?url";

export const links: LinksFunction = () => [
  { rel: "stylesheet", href: stylesHref },
  { rel: "icon", href: "/favicon.svg", type: "image/svg+xml" },
];

export const meta: MetaFunction = ({ error }) => {
  const notFound = isRouteErrorResponse(error) && error.status === 404;
  const title = !error ? "Gatepost" : notFound ? "Page not found — Gatepost" : "Request refused — Gatepost";
  return [
    { title },
    { name: "description", content: "Gatepost: forms that check you are human with Cloudflare Turnstile." },
  ];
};

export function Layout({ children }: { children: ReactNode }) {
  const nonce = useNonce();
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <Meta />
        <Links />
      </head>
      <body>
        <a className="skip-link" href="#main">
          Skip to content
        </a>
        <header className="site">
          <a href="/">Gatepost</a>
        </header>
        <main id="main" tabIndex={-1}>
          {children}
        </main>
        <footer className="site">Gatepost — forms checked by Cloudflare Turnstile before anything is kept.</footer>
        <ScrollRestoration nonce={nonce} />
        <Scripts nonce={nonce} />
      </body>
    </html>
  );
}

export default function App() {
  return <Outlet />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
