import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";

// patches/@remix-run+server-runtime+2.17.5.patch (ADR 102) edits data.js in the package's CommonJS build,
// dist: the one the Worker, `npm run dev` and the workers tests load (patches/formats.ts, ADR 116),
// required here as Node requires it. A loader or action is
// handed the request itself when it has no `index` or `_data` parameter to strip, and otherwise, as
// published, a copy without them (an `index` with a value is kept). The Worker's side of it is in
// tests/workers/server-runtime-patch.test.ts.

const require = createRequire(import.meta.url);
type Handler = (args: { request: Request; context: unknown; params: Record<string, string> }) => unknown;
type CallArgs = { loadContext: unknown; params: Record<string, string>; request: Request; routeId: string; singleFetch: boolean };
type DataModule = {
  callRouteLoader(args: CallArgs & { loader: Handler }): Promise<unknown>;
  callRouteAction(args: CallArgs & { action: Handler }): Promise<unknown>;
};
const BUILDS: Record<"cjs", () => Promise<DataModule>> = {
  cjs: async () => require("@remix-run/server-runtime/dist/data.js"),
};

/** The request the route's loader (or action) was handed for `request`, through the build's own call. */
async function handedTo(build: DataModule, kind: "loader" | "action", request: Request): Promise<Request> {
  let seen: Request | null = null;
  const handler: Handler = ({ request: given }) => {
    seen = given;
    return { ok: true };
  };
  const args = { loadContext: {}, params: {}, request, routeId: "routes/f.$formId", singleFetch: false };
  await (kind === "loader" ? build.callRouteLoader({ ...args, loader: handler }) : build.callRouteAction({ ...args, action: handler }));
  if (seen === null) throw new Error("the handler was not called");
  return seen;
}

describe.each(Object.keys(BUILDS) as Array<keyof typeof BUILDS>)("@remix-run/server-runtime's %s build", (name) => {
  it("hands a loader the request itself when there is nothing to strip", async () => {
    const build = await BUILDS[name]();
    const request = new Request("https://gatepost.test/f/contact?lang=fr&embed=1");
    expect(await handedTo(build, "loader", request)).toBe(request);
  });

  it("hands an action the request itself, its body unread", async () => {
    const build = await BUILDS[name]();
    const request = new Request("https://gatepost.test/f/contact", { method: "POST", body: new URLSearchParams({ name: "Zoë" }) });
    const given = await handedTo(build, "action", request);
    expect(given).toBe(request);
    expect((await given.formData()).get("name")).toBe("Zoë");
  });

  it("strips `_data` and an empty `index` into a copy, keeping the rest", async () => {
    const build = await BUILDS[name]();
    const request = new Request("https://gatepost.test/f/contact?index&_data=routes%2Ff.%24formId&lang=fr");
    const given = await handedTo(build, "loader", request);
    expect(given).not.toBe(request);
    expect(given.url).toBe("https://gatepost.test/f/contact?lang=fr");
  });

  it("keeps an `index` with a value and strips `_data` alone", async () => {
    const build = await BUILDS[name]();
    const request = new Request("https://gatepost.test/f/contact?index=2&_data=root", { method: "POST", body: "a=1" });
    const given = await handedTo(build, "action", request);
    expect(given).not.toBe(request);
    expect(new URL(given.url).searchParams.getAll("index")).toEqual(["2"]);
    expect(new URL(given.url).searchParams.has("_data")).toBe(false);
    expect(await given.text()).toBe("a=1");
  });
});
