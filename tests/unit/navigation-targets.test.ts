import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { safeNext } from "~/lib/auth/admin-user.server";
import {
  ROUTER_BUILDS,
  installedRouterText,
  loadRouter,
  publishedRouterTexts,
  removeRouterCopies,
  type RouterBuild,
  type RouterModule,
} from "../support/router-copies";

// Every navigation target (a Link's `to`, navigate(), a redirect a loader returns) becomes an href
// through the router's resolveTo. GHSA-jjmj-jmhj-qwj2 (a `to` like "javascript:…" or "//host" kept as
// an absolute URL; fixed in @remix-run/router 1.23.4, brought in by `overrides`) and GHSA-wrjc-x8rr-h8h6
// (a backslash, or a tab or line break, that the browser reads as part of "//host"; fixed upstream only
// in 7.18, here by patches/@remix-run+router+1.23.4.patch) are attacked in the installed router's one
// build (patches/formats.ts): the href must stay on the page's origin, as the browser resolves it (WHATWG URL). The published
// 1.23.4 lets the backslash through, so this test would notice the patch gone (ADR 055).

const ORIGIN = "https://gatepost.example";
const FROM = ["/", "/f/contact", "/admin/submissions/abc"];
const ATTACKS = [
  "javascript:alert(1)",
  "//evil.example",
  "///evil.example",
  "/\\evil.example",
  "\\\\evil.example",
  "\\/evil.example",
  "/\t/evil.example",
  "/\n/evil.example",
  "\t//evil.example",
  "/\r\\evil.example",
  "/f/../\\evil.example",
  "/f/..\\..\\\\evil.example",
  "../../\\evil.example",
  "/\\evil.example:443/x",
  "/\\\\evil.example?next=/admin",
];

/** Where a browser on `from` goes for `to`: the router's href, resolved by the WHATWG URL parser. */
function destination(router: RouterModule, to: string, from: string): URL {
  const path = router.resolveTo(to, [from], from, false);
  return new URL(router.createPath(path), `${ORIGIN}${from}`);
}

function escapes(router: RouterModule): string[] {
  return ATTACKS.flatMap((to) =>
    FROM.filter((from) => destination(router, to, from).origin !== ORIGIN).map((from) => `${JSON.stringify(to)} from ${from}`),
  );
}

let installed: Record<RouterBuild, RouterModule>;
let published: RouterModule;
beforeAll(async () => {
  installed = {
    "router.js": await loadRouter(installedRouterText("router.js"), "router.js"),
  };
  published = await loadRouter(publishedRouterTexts()["router.js"], "router.js");
});
afterAll(() => removeRouterCopies());

describe("navigation targets", () => {
  it.each(ROUTER_BUILDS)("%s keeps every attacking target on the page's origin", (build) => {
    expect(escapes(installed[build])).toEqual([]);
  });

  it("the published 1.23.4 lets a backslash leave the origin: the patch is what closes it", () => {
    expect(escapes(published)).toContain(`"/\\\\evil.example" from /`);
  });

  it("resolves the app's own targets as before", () => {
    for (const build of ROUTER_BUILDS) {
      for (const to of [
        "/f/contact",
        "/admin/submissions?form=contact&status=dead",
        "/admin/forms/a-b/destinations",
        "..",
        "thanks/1#top",
      ]) {
        expect([build, to, destination(installed[build], to, "/f/contact").href]).toEqual([
          build,
          to,
          destination(published, to, "/f/contact").href,
        ]);
      }
    }
  });

  // The one target built from request data: the console's sign-in `next` (app/lib/auth/admin-user.server.ts),
  // answered as a Location header (the browser resolves it) and, on a client navigation, by the router.
  it("sign-in's next goes through safeNext, whose answer neither the browser nor the router takes off /admin", () => {
    for (const attack of ATTACKS) {
      const next = safeNext(attack);
      expect([attack, new URL(next, ORIGIN).pathname.startsWith("/admin")]).toEqual([attack, true]);
      expect([attack, destination(installed["router.js"], next, "/admin/login").origin]).toEqual([attack, ORIGIN]);
    }
  });
});
