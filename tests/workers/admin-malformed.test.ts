import { beforeEach, describe, expect, it, vi } from "vitest";
import { ADMIN_ROUTES, fullPath, type ManifestRoute } from "./admin-routes";
import { appFetch } from "./helpers";
import { ADMIN_PASSWORD, adminEnv, clearAdminTables, SAME_ORIGIN, seedSubmission, sessionCookie } from "./admin-helpers";

// No 500 on odd input anywhere in the console. Every /admin route and action is read from
// the built route manifest (a route added later is covered without anyone listing it) and gets
// malformed query parameters, path parameters, form bodies and cookies, as nobody, a viewer and an
// admin. Any 5xx fails; what a bad value gets instead (400, 404, a kept default) is each route's own.

const adminRoutes = ADMIN_ROUTES;

// Raw, as they would appear in a URL or body: invalid percent-escapes and bytes included on purpose.
const BAD_VALUES = [
  "2026-02-31",
  "2026-13-01",
  "0000-00-00",
  "9999-99-99",
  "2026-1-1",
  "%00",
  "%FF",
  "%",
  "%E2%80%AE",
  "%01%02%1F",
  "%0D%0ALocation:%20//evil",
  "-1",
  "0",
  "1e999",
  "NaN",
  "Infinity",
  "%5B%5D",
  "__proto__",
  "constructor",
  "..%2F..%2Fetc",
  "%2F%2Fevil.example",
  "%5Cevil",
  "a".repeat(5000),
  "%F0%9F%98%80",
  "%ED%A0%80",
];
/** The few that tell intents apart, for the per-intent bodies (the full list goes in every field). */
const SOME_BAD_VALUES = ["2026-02-31", "%00", "%FF", "%", "%0D%0ALocation:%20//evil", "__proto__", "a".repeat(5000), "%ED%A0%80"];
const KEYS = ["form", "status", "from", "to", "q", "page", "format", "next", "deleted", "intent", "id"];
const FIELDS = ["intent", "formId", "email", "confirm", "password", "next"];

// Hundreds of requests a test, on a machine that may be busy: bounded by count, with room in time.
const TIMEOUT_MS = 120_000;
let submissionId = "";
let cookies: Array<[string, Record<string, string>]> = [];

beforeEach(async () => {
  await clearAdminTables();
  submissionId = await seedSubmission({ fields: { name: "Ada", email: "ada@example.org", message: "hi" }, quarantineReason: "honeypot" });
  cookies = [
    ["nobody", {}],
    ["junk cookie", { Cookie: "__Host-gp_admin_session=%FF%00.%%%; __Host-gp_admin_session=x" }],
    ["viewer", { Cookie: await sessionCookie("viewer") }],
    ["admin", { Cookie: await sessionCookie("admin") }],
  ];
});

const signedIn = (who: string) => who === "admin" || who === "viewer";

function urlFor(route: ManifestRoute, id = submissionId): string {
  const path = fullPath(route)
    .replace(/:id\b/, id)
    .replace(/:[a-zA-Z]+/g, "contact");
  return `http://localhost${path}${route.index ? "?index" : ""}`;
}

function withQuery(url: string, query: string): string {
  return `${url}${url.includes("?") ? "&" : "?"}${query}`;
}

async function statusOf(request: Request): Promise<number> {
  const response = await appFetch(request, await adminEnv());
  await response.arrayBuffer();
  return response.status;
}

/** Sends every request and returns the ones answered with a 5xx, as "status METHOD url (who)". */
async function serverErrors(requests: Array<[string, Request]>): Promise<string[]> {
  const failures: string[] = [];
  for (const [who, request] of requests) {
    const label = `${request.method} ${request.url.slice(0, 120)} (${who})`;
    const status = await statusOf(request);
    if (status >= 500) failures.push(`${status} ${label}`);
  }
  return failures;
}

describe("malformed input to every admin route", () => {
  it("covers the routes this test expects (the manifest, not a hand-kept list)", () => {
    expect(adminRoutes.length).toBeGreaterThanOrEqual(9);
    expect(adminRoutes.filter((r) => r.module.action).length).toBeGreaterThanOrEqual(5);
  });

  it.each(adminRoutes.filter((r) => r.module.loader).map((r) => [r.id, r]))(
    "GET %s with malformed query and path values: never a 5xx",
    async (_id, route) => {
      // The router warns of each path segment it cannot decode, as these requests ask; kept, not printed.
      const warnings: string[] = [];
      vi.spyOn(console, "warn").mockImplementation((...args: unknown[]) => void warnings.push(args.join(" ")));
      const requests: Array<[string, Request]> = [];
      const headers = { "Sec-Fetch-Site": "same-origin" };
      for (const [who, cookie] of cookies) {
        // Without a session most routes stop at the guard, so fewer values do; signed in, all of them.
        for (const value of signedIn(who) ? BAD_VALUES : SOME_BAD_VALUES) {
          const query = KEYS.map((key) => `${key}=${value}`).join("&");
          requests.push([who, new Request(withQuery(urlFor(route), query), { headers: { ...headers, ...cookie } })]);
          // The same with a real form, so a route that looks the form up first reads the rest too.
          const withForm = `form=contact&${KEYS.filter((key) => key !== "form")
            .map((key) => `${key}=${value}`)
            .join("&")}`;
          if (who === "admin")
            requests.push([who, new Request(withQuery(urlFor(route), withForm), { headers: { ...headers, ...cookie } })]);
          // A value with a slash is another path, not this route's parameter.
          if (fullPath(route).includes(":id") && !value.includes("/"))
            requests.push([who, new Request(urlFor(route, value), { headers: { ...headers, ...cookie } })]);
        }
        // The whole filter set at once with repeated keys, and export's required form with bad dates.
        requests.push([
          who,
          new Request(withQuery(urlFor(route), "form=contact&from=2026-02-30&to=2026-02-31&from=x&format=csv&format=json"), {
            headers: { ...headers, ...cookie },
          }),
        ]);
      }
      expect(await serverErrors(requests)).toEqual([]);
      expect(warnings.filter((line) => !/could not be decoded because it is is a malformed URL segment/.test(line))).toEqual([]);
    },
    TIMEOUT_MS,
  );

  it.each(adminRoutes.filter((r) => r.module.action).map((r) => [r.id, r]))(
    "POST %s with malformed bodies: never a 5xx",
    async (_id, route) => {
      const requests: Array<[string, Request]> = [];
      const post = (
        who: string,
        cookie: Record<string, string>,
        body: BodyInit,
        type: string | null,
        extra: Record<string, string> = {},
      ) => {
        const headers: Record<string, string> = { ...SAME_ORIGIN, "CF-Connecting-IP": "198.51.100.77", ...cookie, ...extra };
        if (type) headers["content-type"] = type;
        requests.push([who, new Request(urlFor(route), { method: "POST", body, headers })]);
      };
      for (const [who, cookie] of cookies) {
        for (const value of signedIn(who) ? BAD_VALUES : SOME_BAD_VALUES) {
          post(who, cookie, FIELDS.map((field) => `${field}=${value}`).join("&"), "application/x-www-form-urlencoded");
        }
        // Past the guards only an admin gets: each intent with odd values beside it.
        if (who === "admin") {
          for (const value of SOME_BAD_VALUES) {
            for (const intent of ["delete", "redeliver", "release", "find", "erase", "everywhere"]) {
              post(
                who,
                cookie,
                `intent=${intent}&formId=${value}&email=${value}&confirm=yes&next=${value}`,
                "application/x-www-form-urlencoded",
              );
            }
          }
        }
        post(
          who,
          cookie,
          new Uint8Array([0x69, 0x6e, 0x74, 0x65, 0x6e, 0x74, 0x3d, 0xff, 0xfe, 0x00]),
          "application/x-www-form-urlencoded",
        );
        post(who, cookie, '--x\r\nContent-Disposition: form-data; name="intent"\r\n\r\nfind', "multipart/form-data; boundary=x");
        post(
          who,
          cookie,
          '--x\r\nContent-Disposition: form-data; name="email"; filename="a.txt"\r\n\r\nada@example.org\r\n--x--\r\n',
          "multipart/form-data; boundary=x",
        );
        post(who, cookie, "intent=find", "multipart/form-data");
        post(who, cookie, '{"intent":"delete"}', "application/json");
        post(who, cookie, "intent=delete", "text/plain");
        post(who, cookie, "", null);
        post(who, cookie, `email=${"a".repeat(40_000)}@example.org&intent=find`, "application/x-www-form-urlencoded");
        post(who, cookie, "intent=find&intent=erase&email=ada@example.org&email=x&confirm=no", "application/x-www-form-urlencoded");
      }
      expect(await serverErrors(requests)).toEqual([]);
    },
    TIMEOUT_MS,
  );

  it(
    "signs in with control characters and odd values in `next`: a safe redirect, never a 5xx",
    async () => {
      const requests: Array<[string, Request]> = [];
      const nexts = [
        "/admin?%00",
        "/admin/%0D%0Ax",
        "/admin?\u0001",
        "/admin?a=\r\nSet-Cookie: x=1",
        "/admin/\u2028",
        "/admin?\uD800",
        "/admin\\evil",
      ];
      nexts.forEach((next, i) => {
        const body = new URLSearchParams({ password: ADMIN_PASSWORD, next }).toString();
        const headers = {
          ...SAME_ORIGIN,
          "content-type": "application/x-www-form-urlencoded",
          "CF-Connecting-IP": `198.51.100.${100 + i}`,
        };
        requests.push(["sign-in", new Request("http://localhost/admin/login", { method: "POST", body, headers })]);
        requests.push([
          "login page",
          new Request(`http://localhost/admin/login?${new URLSearchParams({ next })}`, { headers: { Cookie: cookies[3][1].Cookie } }),
        ]);
      });
      expect(await serverErrors(requests)).toEqual([]);
      const body = new URLSearchParams({ password: ADMIN_PASSWORD, next: "/admin?\u0001" }).toString();
      const headers = { ...SAME_ORIGIN, "content-type": "application/x-www-form-urlencoded", "CF-Connecting-IP": "198.51.100.99" };
      const signedIn = await appFetch(new Request("http://localhost/admin/login", { method: "POST", body, headers }), await adminEnv());
      expect(signedIn.status).toBe(303);
      expect(signedIn.headers.get("location")).toBe("/admin");
    },
    TIMEOUT_MS,
  );
});
