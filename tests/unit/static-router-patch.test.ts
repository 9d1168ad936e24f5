import { createRequire } from "node:module";
import { createElement, type ReactNode } from "react";
import { renderToString } from "react-dom/server";
import { createStaticHandler, type StaticHandlerContext } from "@remix-run/router";
import { Outlet, useParams, type RouteObject } from "react-router-dom";
import { describe, expect, it } from "vitest";

// react-router-dom's static router keeps its data routes per routes array
// (patches/react-router-dom+6.30.6.patch, ADR 054), so a server that renders the same routes again hands
// the router the same array and its ranked branches are kept (ADR 023). Rendering with kept data routes
// must answer exactly as rendering with freshly converted ones, which is what the published package does
// on every call: a new, equal routes array per render is the published behaviour. The patch edits
// server.js (CommonJS), the one every build loads (patches/formats.ts, ADR 116), required here as Node does.

type StaticServer = typeof import("react-router-dom/server");
const require = createRequire(import.meta.url);
const COPIES: Record<string, () => Promise<StaticServer>> = {
  "server.js": async () => require("react-router-dom/server.js"),
};

const Params = () => createElement("p", null, JSON.stringify(useParams()));
const Page = (name: string) => () => createElement("main", null, name, createElement(Params));

function appRoutes(): RouteObject[] {
  return [
    {
      id: "root",
      path: "/",
      element: createElement("div", null, createElement(Outlet)),
      children: [
        { id: "index", index: true, Component: Page("index") },
        { id: "form", path: "f/:formId", Component: Page("form") },
        { id: "schema", path: "f/:formId/schema.json", Component: Page("schema") },
        { id: "files", path: "files/*", Component: Page("files") },
        { id: "admin", path: "admin", children: [{ id: "admin-form", path: "forms/:id?", Component: Page("admin form") }] },
      ],
    },
  ];
}

const PATHS = ["/", "/f/contact", "/f/contact/schema.json", "/files/a/b.pdf", "/admin/forms", "/admin/forms/x", "/f/caf%C3%A9"];

type Rendered = { html: string; router: ReturnType<StaticServer["createStaticRouter"]> };

async function renderWith(copy: StaticServer, routes: RouteObject[], path: string): Promise<Rendered> {
  const { createStaticRouter, StaticRouterProvider } = copy;
  const context = (await createStaticHandler(routes).query(new Request(`http://localhost${path}`))) as StaticHandlerContext;
  const router = createStaticRouter(routes, context);
  const html = renderToString(createElement(StaticRouterProvider, { router, context }) as ReactNode);
  return { html, router };
}

describe.each(Object.keys(COPIES))("the static router with kept data routes, %s", (name) => {
  const render = async (routes: RouteObject[], path: string) => renderWith(await COPIES[name](), routes, path);

  it("hands the same data routes to every render of the same routes, and new ones for other routes", async () => {
    const routes = appRoutes();
    const first = await render(routes, "/f/contact");
    const second = await render(routes, "/admin/forms/x");
    expect(second.router.routes).toBe(first.router.routes);
    expect((await render(appRoutes(), "/f/contact")).router.routes).not.toBe(first.router.routes);
  });

  it("renders every path, in any order, exactly as with freshly converted routes", async () => {
    const kept = appRoutes();
    const order = [...PATHS, ...[...PATHS].reverse(), ...PATHS];
    for (const path of order) {
      const withKept = await render(kept, path);
      const published = await render(appRoutes(), path);
      expect([path, withKept.html]).toEqual([path, published.html]);
      expect(withKept.router.state.matches.map((m) => [m.route.id, m.params])).toEqual(
        published.router.state.matches.map((m) => [m.route.id, m.params]),
      );
    }
    expect((await render(kept, "/f/contact")).html).toContain("form");
  });
});
