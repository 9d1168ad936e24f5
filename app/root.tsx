import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { isRouteErrorResponse, useLocation, useRouteLoaderData } from "@remix-run/react";
import { usePageFrame, useReportHeight } from "~/components/page-frame";
import { Links, Meta, Outlet, Scripts, ScrollRestoration } from "@remix-run/react";
import type { ReactNode } from "react";
import { GeneralErrorBoundary } from "~/components/error-boundary";
import { useNonce } from "~/components/nonce";
import { SiteHeader } from "~/components/site-header";
import stylesHref from "~/styles.css?url";

export const links: LinksFunction = () => [
  { rel: "stylesheet", href: stylesHref },
  { rel: "icon", href: "/favicon.svg", type: "image/svg+xml" },
];

export const meta: MetaFunction = ({ error }) => {
  const notFound = isRouteErrorResponse(error) && error.status === 404;
  const title = !error ? "Gatepost" : notFound ? "Page not found — Gatepost" : "Request refused — Gatepost";
  return [{ title }, { name: "description", content: "Gatepost: forms that check you are human with Cloudflare Turnstile." }];
};

// The site's look never changes within a visit, so navigations do not fetch it again.
export function loader({ context }: LoaderFunctionArgs) {
  const { name, logoUrl, brand } = context.settings.site;
  return { site: { name, logoUrl, brand } };
}

export const shouldRevalidate = () => false;

/** The page's CSP nonce in the browser: Chromium empties nonce attributes but keeps the property. */
function pageNonce(): string {
  return typeof document === "undefined" ? "" : (document.querySelector<HTMLScriptElement>("script[nonce]")?.nonce ?? "");
}

function isConsolePath(pathname: string): boolean {
  return pathname === "/admin" || pathname.startsWith("/admin/");
}

export function Layout({ children }: { children: ReactNode }) {
  const nonce = useNonce();
  const forVisitors = !isConsolePath(useLocation().pathname);
  const site = useRouteLoaderData<typeof loader>("root")?.site ?? { name: "Gatepost", logoUrl: null, brand: null };
  // A form's pages speak the visitor's language (the console stays English): lang, dir and the frame's words.
  const frame = usePageFrame();
  useReportHeight(frame);
  return (
    <html lang={frame.lang} dir={frame.dir}>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <Meta />
        <Links />
        {site.brand ? (
          // The CSP allows this one nonced <style>; React needs the real nonce should it render it in the browser.
          <style
            nonce={nonce || pageNonce()}
            dangerouslySetInnerHTML={{
              __html: `:root{--brand:${site.brand.color};--brand-ink:${site.brand.ink};--link:${site.brand.link}}`,
            }}
          />
        ) : null}
      </head>
      <body className={frame.embed ? "embed" : undefined}>
        <a className="skip-link" href="#main">
          {frame.skipLink}
        </a>
        {frame.embed ? null : <SiteHeader name={site.name} logoUrl={site.logoUrl} />}
        <main id="main" tabIndex={-1}>
          {children}
        </main>
        {forVisitors && !frame.embed ? (
          <footer className="site">
            <p>{frame.footer}</p>
          </footer>
        ) : null}
        {/* A framed page is as tall as its content: the embedding page scrolls, and keeps nothing in storage for it (ADR 108). */}
        {frame.embed ? null : <ScrollRestoration nonce={nonce} />}
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
