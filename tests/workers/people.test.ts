import { beforeEach, describe, expect, it } from "vitest";
import { env } from "cloudflare:test";
import { appFetch } from "./helpers";
import { adminEnv, adminGet, adminPost, clearAdminTables, SAME_ORIGIN, seedSubmission, sessionCookie } from "./admin-helpers";
import { LOGIN_PERSON_RULE } from "~/lib/auth/sign-in-budget.server";

// People of a team (issue 56, docs/people.md): invited by the API, the link followed, signed in with
// their own password, named in the audit log, and removed: their session and token refused at once.

const API_TOKEN = "people-test-admin-token-0123456789abcdef";
const PASSWORD = "a long enough password 1";
/** The middle of a 15-minute window, so a run of attempts never straddles two. */
const MID_WINDOW = Math.floor(Date.now() / 900_000) * 900_000 + 450_000;

beforeEach(async () => {
  await clearAdminTables();
  await env.DB.batch(
    ["webauthn_challenges", "person_passkeys", "person_invitations", "admin_api_tokens", "people"].map((t) =>
      env.DB.prepare(`DELETE FROM ${t}`),
    ),
  );
});

const appEnvOf = () => adminEnv({ ADMIN_API_TOKEN: API_TOKEN });

function api(method: string, path: string, body?: unknown, token = API_TOKEN) {
  return new Request(`http://localhost/admin/api/people${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
}

async function invite(email: string, role: "admin" | "viewer") {
  const response = await appFetch(api("POST", "", { email, role }), await appEnvOf());
  expect(response.status).toBe(201);
  return (await response.json()) as { id: string; inviteUrl: string; expiresAt: string };
}

/** Follows the link with a password; returns the session cookie. */
async function join(inviteUrl: string, password = PASSWORD): Promise<Response> {
  const path = new URL(inviteUrl).pathname;
  return appFetch(adminPost(path, { password, confirm: password }), await appEnvOf());
}

const cookieOf = (response: Response) => (response.headers.get("set-cookie") ?? "").split(";")[0];

function signIn(email: string, password: string, ip = "198.51.100.4") {
  return adminPost("/admin/login", { email, password, next: "/admin" }, { "CF-Connecting-IP": ip });
}

describe("people", () => {
  it("invites by API, follows the link once, and signs the person in as themselves", async () => {
    const made = await invite("Alice@Example.org", "viewer");
    expect(made.inviteUrl).toMatch(/^http:\/\/localhost\/admin\/join\/gpinv_[\w-]{43}$/);
    expect(Date.parse(made.expiresAt) - Date.now()).toBeGreaterThan(23 * 3_600_000);
    const listed = (await (await appFetch(api("GET", ""), await appEnvOf())).json()) as { people: { email: string; state: string }[] };
    expect(listed.people).toMatchObject([{ email: "alice@example.org", state: "invited" }]);
    // The table keeps only the link's hash.
    const stored = await env.DB.prepare("SELECT token_hash FROM person_invitations").first<{ token_hash: string }>();
    expect(made.inviteUrl).not.toContain(stored!.token_hash);

    const page = await appFetch(adminGet(new URL(made.inviteUrl).pathname), await appEnvOf());
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("alice@example.org");
    const joined = await join(made.inviteUrl);
    expect(joined.status).toBe(303);
    const console = await appFetch(adminGet("/admin", cookieOf(joined)), await appEnvOf());
    expect(await console.text()).toContain("Signed in as alice@example.org (viewer)");
    // A second use of the link is refused, and sets nothing.
    const again = await join(made.inviteUrl, "another password 123");
    expect(again.status).toBe(410);
    expect(again.headers.get("Gatepost-Error-Code")).toBe("invitation_invalid");

    const wrong = await appFetch(signIn("alice@example.org", "not the password"), await appEnvOf(), { now: () => MID_WINDOW });
    expect(wrong.status).toBe(401);
    const right = await appFetch(signIn("ALICE@example.org", PASSWORD), await appEnvOf(), { now: () => MID_WINDOW });
    expect(right.status).toBe(303);
    const audit = await env.DB.prepare("SELECT actor, action FROM audit_log ORDER BY id").all<{ actor: string; action: string }>();
    expect(audit.results).toEqual([
      { actor: "token:ADMIN_API_TOKEN", action: "person.invite" },
      { actor: "person:alice@example.org", action: "person.join" },
      { actor: "person:alice@example.org", action: "sign-in" },
    ]);
    const row = await env.DB.prepare("SELECT last_sign_in_at FROM people").first<{ last_sign_in_at: number }>();
    expect(row!.last_sign_in_at).toBe(MID_WINDOW);
  });

  it("refuses an expired link, a second invitation to one address, and bad input", async () => {
    const made = await invite("bob@example.org", "admin");
    const late = await appFetch(adminGet(new URL(made.inviteUrl).pathname), await appEnvOf(), {
      now: () => Date.now() + 24 * 3_600_000 + 1,
    });
    expect(late.status).toBe(410);
    const twice = await appFetch(api("POST", "", { email: "bob@example.org", role: "viewer" }), await appEnvOf());
    expect(twice.status).toBe(409);
    expect(((await twice.json()) as { code: string }).code).toBe("person_exists");
    const bad = await appFetch(api("POST", "", { email: "not an address", role: "owner" }), await appEnvOf());
    expect(bad.status).toBe(422);
    // A viewer's session may not invite.
    const viewer = await appFetch(
      new Request("http://localhost/admin/api/people", {
        method: "POST",
        headers: { ...SAME_ORIGIN, Cookie: await sessionCookie("viewer", await appEnvOf()), "content-type": "application/json" },
        body: JSON.stringify({ email: "carol@example.org", role: "viewer" }),
      }),
      await appEnvOf(),
    );
    expect(viewer.status).toBe(403);
  });

  it("ends a removed person's session and API token on their next request", async () => {
    const made = await invite("dana@example.org", "admin");
    const session = cookieOf(await join(made.inviteUrl));
    // Dana makes a token of her own in the console.
    const tokenPage = await appFetch(
      adminPost("/admin/tokens", { intent: "create", name: "dana's script", role: "admin" }, { Cookie: session }),
      await appEnvOf(),
    );
    const token = /gpat_[\w-]+/.exec(await tokenPage.text())![0];
    expect((await appFetch(api("GET", "", undefined, token), await appEnvOf())).status).toBe(200);
    const owner = await env.DB.prepare("SELECT person_id, created_by FROM admin_api_tokens").first();
    expect(owner).toEqual({ person_id: made.id, created_by: "person:dana@example.org" });

    expect((await appFetch(api("DELETE", `/${made.id}`), await appEnvOf())).status).toBe(204);
    const page = await appFetch(adminGet("/admin", session), await appEnvOf());
    expect(page.status).toBe(303);
    expect(page.headers.get("location")).toMatch(/^\/admin\/login/);
    expect((await appFetch(api("GET", "", undefined, token), await appEnvOf())).status).toBe(401);
    expect((await appFetch(signIn("dana@example.org", PASSWORD), await appEnvOf(), { now: () => MID_WINDOW })).status).toBe(401);
    const sessions = await env.DB.prepare("SELECT COUNT(*) AS n FROM admin_sessions").first<{ n: number }>();
    expect(sessions!.n).toBe(0);
    // Removing again: no such person.
    expect((await appFetch(api("DELETE", `/${made.id}`), await appEnvOf())).status).toBe(404);
  });

  it("keeps the last admin from removing or demoting themselves", async () => {
    const made = await invite("erin@example.org", "admin");
    const session = cookieOf(await join(made.inviteUrl));
    const self = await appFetch(
      new Request(`http://localhost/admin/api/people/${made.id}`, { method: "DELETE", headers: { ...SAME_ORIGIN, Cookie: session } }),
      await appEnvOf(),
    );
    expect(self.status).toBe(409);
    expect(((await self.json()) as { code: string }).code).toBe("person_last_admin");
    const demote = await appFetch(
      adminPost("/admin/people", { intent: "role", id: made.id, role: "viewer" }, { Cookie: session }),
      await appEnvOf(),
    );
    expect(demote.status).toBe(409);
    // With a second admin who has joined, Erin may step down.
    const second = await invite("frank@example.org", "admin");
    await join(second.inviteUrl);
    const stepDown = await appFetch(
      adminPost("/admin/people", { intent: "role", id: made.id, role: "viewer" }, { Cookie: session }),
      await appEnvOf(),
    );
    expect(stepDown.status).toBe(200);
    const console = await appFetch(adminGet("/admin", session), await appEnvOf());
    expect(await console.text()).toContain("Signed in as erin@example.org (viewer)");
  });

  it("counts wrong passwords per person, from any address", async () => {
    const made = await invite("gus@example.org", "viewer");
    await join(made.inviteUrl);
    const appEnv = await appEnvOf();
    for (let i = 0; i < LOGIN_PERSON_RULE.limit; i++) {
      const response = await appFetch(signIn("gus@example.org", `guess ${i}`, `203.0.113.${i + 1}`), appEnv, { now: () => MID_WINDOW });
      expect(response.status).toBe(401);
    }
    const locked = await appFetch(signIn("gus@example.org", PASSWORD, "198.51.100.200"), appEnv, { now: () => MID_WINDOW });
    expect(locked.status).toBe(429);
    // The owner password is untouched by a person's lock-out.
    const owner = await appFetch(adminPost("/admin/login", { password: "correct horse battery staple" }), appEnv, {
      now: () => MID_WINDOW,
    });
    expect(owner.status).toBe(303);
  });

  it("names the person in the trail of what they release, mark and delete, by session or by token", async () => {
    const made = await invite("hana@example.org", "admin");
    const session = cookieOf(await join(made.inviteUrl));
    const held = await seedSubmission({ fields: { name: "Ada", email: "ada@example.org", message: "hi" }, quarantineReason: "honeypot" });
    const other = await seedSubmission({ fields: { name: "Bo", email: "bo@example.org", message: "hello" } });
    const released = await appFetch(adminPost(`/admin/submissions/${held}`, { intent: "release" }, { Cookie: session }), await appEnvOf());
    expect(released.status).toBeLessThan(400);
    const tokenPage = await appFetch(
      adminPost("/admin/tokens", { intent: "create", name: "cleanup", role: "admin" }, { Cookie: session }),
      await appEnvOf(),
    );
    const token = /gpat_[\w-]+/.exec(await tokenPage.text())![0];
    const bearer = (method: string, path: string, body?: unknown) =>
      new Request(`http://localhost/admin/api/submissions/${path}`, {
        method,
        headers: { Authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
    expect((await appFetch(bearer("POST", `${other}/mark`, { as: "spam" }), await appEnvOf())).status).toBe(200);
    expect((await appFetch(bearer("DELETE", other), await appEnvOf())).status).toBe(204);
    const trail = await env.DB.prepare("SELECT actor, action FROM audit_log WHERE action LIKE 'submission.%' ORDER BY id").all<{
      actor: string;
      action: string;
    }>();
    expect(trail.results).toEqual([
      { actor: "person:hana@example.org", action: "submission.release" },
      { actor: "person:hana@example.org", action: "submission.mark" },
      { actor: "person:hana@example.org", action: "submission.delete" },
    ]);
  });

  it("hands out a passkey challenge once, refuses an answer that does not check out, and keeps passkeys to people", async () => {
    const options = await appFetch(adminPost("/admin/passkey", {}), await appEnvOf());
    expect(options.status).toBe(200);
    const { options: sent } = (await options.json()) as { options: { challenge: string; rpId: string } };
    expect(sent.rpId).toBe("localhost");
    const stored = await env.DB.prepare("SELECT purpose, person_id FROM webauthn_challenges WHERE challenge = ?1")
      .bind(sent.challenge)
      .first();
    expect(stored).toEqual({ purpose: "sign-in", person_id: null });
    const forged = {
      id: "bm8ta2V5",
      rawId: "bm8ta2V5",
      type: "public-key",
      response: { clientDataJSON: "e30", authenticatorData: "", signature: "" },
    };
    const refused = await appFetch(adminPost("/admin/passkey", { response: JSON.stringify(forged) }), await appEnvOf());
    expect(refused.status).toBe(401);
    expect(refused.headers.get("Gatepost-Error-Code")).toBe("passkey_failed");
    expect(refused.headers.get("set-cookie")).toBeNull();
    // The shared password has no passkeys: they belong to a person.
    const owner = await sessionCookie("admin", await appEnvOf());
    const shared = await appFetch(adminPost("/admin/passkeys", { intent: "options" }, { Cookie: owner }), await appEnvOf());
    expect(shared.status).toBe(403);
    const made = await invite("ivy@example.org", "viewer");
    const session = cookieOf(await join(made.inviteUrl));
    const mine = await appFetch(
      adminPost("/admin/passkeys?_data=routes%2Fadmin.passkeys", { intent: "options" }, { Cookie: session }),
      await appEnvOf(),
    );
    expect(mine.status).toBe(200);
    const registration = (await mine.json()) as { options: { challenge: string; user: { name: string } } };
    expect(registration.options.user.name).toBe("ivy@example.org");
    const bound = await env.DB.prepare("SELECT person_id FROM webauthn_challenges WHERE challenge = ?1")
      .bind(registration.options.challenge)
      .first();
    expect(bound).toEqual({ person_id: made.id });
  });
});
