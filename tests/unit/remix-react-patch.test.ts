import { createElement, useContext, type ComponentType, type ReactNode } from "react";
import { renderToString } from "react-dom/server";
import { createStaticHandler, type StaticHandlerContext } from "@remix-run/router";
import { Outlet, UNSAFE_DataRouterContext, useParams } from "react-router";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { installedText, loadText, publishedTexts, removeRouterCopies } from "../support/router-copies";

// patches/@remix-run+react+2.17.5.patch edits two files of the package's ESM build, dist/esm: the one the
// browser, the Worker, `npm run dev` and the workers tests load (patches/formats.ts, ADR 116), imported
// here as they import it:
// - server.js: RemixServer keeps its server routes per build (ADR 054), so a render of the same build
//   hands the static router the same routes; a changed route module (dev's hot reload) gets new ones;
// - errors.js: deserializeErrors rebuilds only the built-in Error subclasses from an error's __subType;
//   any other name, such as a constructor on window, hydrates as a plain Error (GHSA-337j-9hxr-rhxg,
//   ADR 055). The published text constructs what window names, which the last test shows.

const DIST = "node_modules/@remix-run/react/dist";
type ServerModule = { RemixServer: ComponentType<{ context: unknown; url: string }> };
type ErrorsModule = { deserializeErrors(errors: Record<string, unknown>): Record<string, unknown> };
const ESM = (file: string) => `@remix-run/react/dist/esm/${file}`;
const BUILDS = {
  esm: async <T>(file: string): Promise<T> => import(/* @vite-ignore */ ESM(file)),
};
type Build = keyof typeof BUILDS;

afterAll(() => removeRouterCopies());

let seenRoutes: unknown[] = [];
function Probe({ name }: { name: string }) {
  seenRoutes.push(useContext(UNSAFE_DataRouterContext)?.router.routes);
  return createElement("main", null, `${name} ${JSON.stringify(useParams())}`);
}
const ROUTE_MODULES = () => ({
  root: { default: () => createElement("div", null, createElement(Outlet)) },
  "routes/_index": { default: () => createElement(Probe, { name: "index" }) },
  "routes/f.$formId": { default: () => createElement(Probe, { name: "form" }) },
});
const manifestRoute = (id: string, parentId: string | undefined, path: string | undefined, index?: boolean) => ({
  id,
  parentId,
  path,
  index,
  module: `/${id}.js`,
  hasLoader: false,
  hasAction: false,
  hasClientLoader: false,
  hasClientAction: false,
  hasErrorBoundary: false,
});
const MANIFEST_ROUTES = () => ({
  root: manifestRoute("root", undefined, ""),
  "routes/_index": manifestRoute("routes/_index", "root", undefined, true),
  "routes/f.$formId": manifestRoute("routes/f.$formId", "root", "f/:formId"),
});
const FUTURE = { v3_fetcherPersist: true, v3_relativeSplatPath: true, v3_throwAbortReason: true, v3_lazyRouteDiscovery: true };
const DATA_ROUTES = [
  {
    id: "root",
    path: "",
    children: [
      { id: "routes/_index", index: true },
      { id: "routes/f.$formId", path: "f/:formId" },
    ],
  },
];

/** What a server build holds for the life of the server: its manifest's routes and its route modules. */
type ServerBuild = { routes: ReturnType<typeof MANIFEST_ROUTES>; modules: ReturnType<typeof ROUTE_MODULES> };
const serverBuild = (): ServerBuild => ({ routes: MANIFEST_ROUTES(), modules: ROUTE_MODULES() });

/** One document render of `path` by `build`'s RemixServer: its HTML and the routes its static router got. */
async function render(build: Build, server: ServerBuild, path: string): Promise<{ html: string; routes: unknown }> {
  const { RemixServer } = await BUILDS[build]<ServerModule>("server.js");
  const url = `http://localhost${path}`;
  const staticHandlerContext = (await createStaticHandler(DATA_ROUTES).query(new Request(url))) as StaticHandlerContext;
  const context = {
    manifest: { routes: server.routes, entry: { module: "/entry.js", imports: [] }, url: "/manifest.js", version: "1" },
    routeModules: server.modules,
    future: FUTURE,
    isSpaMode: false,
    staticHandlerContext,
    serverHandoffString: "{}",
    renderMeta: {},
  };
  seenRoutes = [];
  const html = renderToString(createElement(RemixServer, { context, url }) as ReactNode);
  expect(seenRoutes).toHaveLength(1);
  return { html, routes: seenRoutes[0] };
}

describe.each(["esm"] as const)("RemixServer, %s build", (build) => {
  it("renders each path, and hands the same routes to every render of one server build", async () => {
    const server = serverBuild();
    const first = await render(build, server, "/f/contact");
    const again = await render(build, server, "/");
    expect(first.html).toContain("<main>form {&quot;formId&quot;:&quot;contact&quot;}</main>");
    expect(again.html).toContain("<main>index {}</main>");
    expect(again.routes).toBe(first.routes);
    expect((await render(build, serverBuild(), "/f/contact")).routes).not.toBe(first.routes);
  });

  it("builds new routes when a route module changes (a hot reload in npm run dev)", async () => {
    const server = serverBuild();
    const before = await render(build, server, "/f/contact");
    server.modules = { ...server.modules, "routes/f.$formId": { default: () => createElement(Probe, { name: "edited" }) } };
    const after = await render(build, server, "/f/contact");
    expect(after.routes).not.toBe(before.routes);
    expect(after.html).toContain("edited");
  });
});

// What the server's error serialisation writes into the page (window.__remixContext.state.errors), with
// __subType naming something a script on the page, or the platform, put on window.
let constructed: string[] = [];
class Gadget {
  constructor(message: string) {
    constructed.push(message);
  }
}
const serialized = (subType: string) => ({ route: { __type: "Error", __subType: subType, message: "m", stack: "s" } });
const HOSTILE = ["Gadget", "Function", "Object", "Promise", "constructor", "__proto__", "toString", "Error ", "AggregateError"];
const BUILT_IN = ["EvalError", "RangeError", "ReferenceError", "SyntaxError", "TypeError", "URIError"];

function hydrate(errors: ErrorsModule, subType: string): unknown {
  return errors.deserializeErrors(serialized(subType)).route;
}

afterEach(() => {
  delete (globalThis as { window?: unknown }).window;
  constructed = [];
});

describe.each(["esm"] as const)("deserializeErrors, %s build", (build) => {
  it.each(HOSTILE)("hydrates __subType %j as a plain Error and constructs nothing from window", async (subType) => {
    Object.assign(globalThis, { window: { Gadget, Function, Object, Promise, AggregateError } });
    const error = hydrate(await BUILDS[build]<ErrorsModule>("errors.js"), subType) as Error;
    expect([error.constructor, error.message, error.stack]).toEqual([Error, "m", "s"]);
    expect(constructed).toEqual([]);
  });

  it.each(BUILT_IN)("hydrates __subType %s as that Error subclass", async (subType) => {
    Object.assign(globalThis, { window: {} });
    const error = hydrate(await BUILDS[build]<ErrorsModule>("errors.js"), subType) as Error;
    expect([error.constructor.name, error instanceof Error, error.message]).toEqual([subType, true, "m"]);
  });
});

describe("the published deserializeErrors", () => {
  it("constructs whatever window names: the attack the patch closes", async () => {
    const file = `${DIST}/esm/errors.js`;
    const published = await loadText<ErrorsModule>(publishedTexts("patches/@remix-run+react+2.17.5.patch", [file])[file], "esm");
    expect(installedText(file)).not.toBe(publishedTexts("patches/@remix-run+react+2.17.5.patch", [file])[file]);
    Object.assign(globalThis, { window: { Gadget } });
    expect(hydrate(published, "Gadget")).toBeInstanceOf(Gadget);
    expect(constructed).toEqual(["m"]);
  });
});
