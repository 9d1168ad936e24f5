import { env } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { CONFIRMATION_LIMITS } from "~/lib/destinations/confirmation/limits.server";
import type { SendEmailBinding } from "~/lib/sending/mailer.server";
import { appFetch, clearTables, countRows, formPost, standin, standinToken, testEnv } from "./helpers";

// The confirmation e-mail cannot be aimed at strangers in bulk (docs/decisions/025): one per mailbox
// per 24 h with its variants folded together (case, +tag, dots, googlemail.com), a few per client
// network an hour (IPv6 /48, IPv4 address), and a cap for the whole site an hour. All of it is decided
// in the accept batch; a submission over a limit is still accepted, its confirmation is only skipped.
// E-mail leaves right after the answer, through a send_email binding that records who it went to.

const VALID = { name: "Grace Hopper", email: "grace@example.org", message: "A ship in port is safe." };
let sent: string[] = [];
const recordingBinding: SendEmailBinding = {
  send: async (message) => {
    sent.push((message as { to: string }).to);
  },
};
const confirmEnv = () =>
  ({
    ...testEnv({ CONTACT_CONFIRMATION: "on", EMAIL_FROM: "forms@example.org", CONTACT_WEBHOOK_URL: "", CONTACT_EMAIL_TO: "" }),
    SEND_EMAIL: recordingBinding,
  }) as unknown as Env;

/** Posts the contact form as `email` from `ip`; the submission must be accepted whatever the limits say. */
async function send(email: string, ip = "203.0.113.7"): Promise<string> {
  const response = await appFetch(
    formPost("/f/contact", { ...VALID, email, "cf-turnstile-response": standinToken() }, { "CF-Connecting-IP": ip }),
    confirmEnv(),
  );
  expect(response.status, email).toBe(303);
  return (response.headers.get("location") ?? "").split("/").pop()!;
}

type Row = { submission_id: string; status: string; last_error: string | null };
async function confirmations(): Promise<Row[]> {
  const sql = "SELECT submission_id, status, last_error FROM deliveries WHERE destination = 'confirmation' ORDER BY created_at, rowid";
  return (await env.DB.prepare(sql).all<Row>()).results;
}

/** Which confirmations were sent (null) and which were skipped (their reason), in order. */
async function outcomes(): Promise<Array<string | null>> {
  return (await confirmations()).map((r) => (r.status === "delivered" ? r.last_error : `still ${r.status}`));
}

beforeEach(async () => {
  sent = [];
  await standin.reset();
  await clearTables();
  await env.DB.exec("DELETE FROM confirmation_limits; DELETE FROM delivery_attempts");
});

describe("one confirmation per mailbox, its variants folded together", () => {
  it("sends one for a mailbox written with case, +tags, dots and googlemail.com, and keeps every submission", async () => {
    const variants = [
      "ada.lovelace@gmail.com",
      "Ada.Lovelace@Gmail.com",
      "adalovelace+news@gmail.com",
      "a.d.a.l.o.v.e.l.a.c.e@googlemail.com",
      "ADA.LOVELACE+x+y@GMAIL.COM",
    ];
    for (const address of variants) await send(address);
    expect(await countRows("submissions")).toBe(variants.length);
    const [first, ...skipped] = await outcomes();
    expect(first).toBeNull();
    for (const reason of skipped) expect(reason).toContain("this mailbox already got a confirmation from this form in the last 24 h");
    expect(sent).toEqual(["ada.lovelace@gmail.com"]);
    // Each skipped one says so in its log, as one skipped attempt; the sent one logged its sending.
    const errors = await env.DB.prepare("SELECT error FROM delivery_attempts ORDER BY id").all<{ error: string | null }>();
    expect(errors.results.map((r) => r.error).sort()).toEqual([null, "skipped", "skipped", "skipped", "skipped"]);
  });

  it("folds dots and +tags on every domain: a company's own mail server may ignore them too", async () => {
    await send("grace.hopper@navy.example");
    await send("gracehopper+1@NAVY.example");
    await send("grace@navy.example");
    expect((await outcomes()).map((reason) => reason === null)).toEqual([true, false, true]);
    expect(sent).toEqual(["grace.hopper@navy.example", "grace@navy.example"]);
  });
});

describe("per client network", () => {
  it("counts an IPv6 sender by its /48, so rotating /64s inside it buys nothing", async () => {
    const { perNetwork } = CONFIRMATION_LIMITS;
    for (let i = 0; i < perNetwork.limit + 2; i++) await send(`stranger${i}@example.org`, `2001:db8:7:${(i + 1).toString(16)}::1`);
    const reasons = await outcomes();
    expect(reasons.slice(0, perNetwork.limit)).toEqual(Array(perNetwork.limit).fill(null));
    expect(reasons.slice(perNetwork.limit)).toEqual([
      expect.stringContaining("from this network in the last hour"),
      expect.stringContaining("from this network in the last hour"),
    ]);
    expect(sent).toHaveLength(perNetwork.limit);
    // Another /48, and an IPv4 address, are networks of their own.
    await send("other48@example.org", "2001:db8:8::1");
    await send("ipv4@example.org", "198.51.100.9");
    expect((await outcomes()).slice(-2)).toEqual([null, null]);
    expect(await countRows("submissions")).toBe(perNetwork.limit + 4);
  });
});

describe("for the whole site", () => {
  it("stops queueing confirmations once the site's hourly cap is reached, from any network", async () => {
    await send("first@example.org", "198.51.100.1");
    // The cap's window as the accept batch counts it, filled up to the limit.
    await env.DB.prepare("UPDATE rate_limits SET count = ?1 WHERE key LIKE 'confirmation:site:%'")
      .bind(CONFIRMATION_LIMITS.site.limit)
      .run();
    await send("second@example.org", "198.51.100.2");
    await send("third@example.org", "2001:db8:99::1");
    const reasons = await outcomes();
    expect(reasons[0]).toBeNull();
    expect(reasons.slice(1)).toEqual([
      expect.stringContaining("the site's hourly limit of confirmations"),
      expect.stringContaining("the site's hourly limit of confirmations"),
    ]);
    expect(await countRows("submissions")).toBe(3);
    expect(sent).toEqual(["first@example.org"]);
  });

  it("counts only confirmations it queued: skipped ones leave every count as it was", async () => {
    await send("same@example.org", "198.51.100.1");
    await send("same@example.org", "198.51.100.1");
    await send("same@example.org", "198.51.100.1");
    const counts = await env.DB.prepare("SELECT key, count FROM rate_limits WHERE key LIKE 'confirmation:%' ORDER BY key").all<{
      key: string;
      count: number;
    }>();
    expect(counts.results.map((r) => r.count)).toEqual([1, 1]);
  });
});
