import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { parseWebhookSecrets, signWebhook } from "~/lib/sending/signature.server";
import { generateSigningSecret as generateWebhookSecret } from "~/lib/destinations/signing-secret";

// The Standard Webhooks spec's own example, from its reference library's test "sign function works"
// (github.com/standard-webhooks/standard-webhooks, libraries/javascript/src/webhook.test.ts).
const SPEC = {
  secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
  id: "msg_p5jXN8AQM9LWM0D4loKWxJek",
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
};

function keysOf(raw: string) {
  const parsed = parseWebhookSecrets(raw);
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.keys;
}

describe("Standard Webhooks signature", () => {
  it("reproduces the spec's known answer", async () => {
    expect(await signWebhook(keysOf(SPEC.secret), SPEC.id, SPEC.timestamp, SPEC.body)).toBe(SPEC.signature);
  });

  it("signs with every secret of a space-separated list, in order", async () => {
    const other = generateWebhookSecret();
    const header = await signWebhook(keysOf(`${SPEC.secret}  ${other}`), SPEC.id, SPEC.timestamp, SPEC.body);
    const [first, second] = header.split(" ");
    expect(first).toBe(SPEC.signature);
    const expected = createHmac("sha256", Buffer.from(other.slice(6), "base64"))
      .update(`${SPEC.id}.${SPEC.timestamp}.${SPEC.body}`)
      .digest("base64");
    expect(second).toBe(`v1,${expected}`);
  });

  it("changes with the body, the id and the timestamp", async () => {
    const keys = keysOf(SPEC.secret);
    const variants = await Promise.all([
      signWebhook(keys, SPEC.id, SPEC.timestamp, '{"test": 2432232315}'),
      signWebhook(keys, "msg_other", SPEC.timestamp, SPEC.body),
      signWebhook(keys, SPEC.id, SPEC.timestamp + 1, SPEC.body),
    ]);
    for (const v of variants) expect(v).not.toBe(SPEC.signature);
  });
});

describe("parseWebhookSecrets", () => {
  it.each([
    ["", "no secret is set"],
    ["   ", "no secret is set"],
    ["MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_"],
    ["whsec_", "whsec_"],
    ["whsec_not base64!", "whsec_"],
    ["whsec_abc", "whsec_"],
    ["whsec_c2hvcnQ=", "fewer than 16 bytes"],
    [`${SPEC.secret} plain-text`, "whsec_"],
  ])("refuses %j", (raw, reason) => {
    const parsed = parseWebhookSecrets(raw);
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.reason).toContain(reason);
  });

  it("accepts generated secrets and the spec's example", () => {
    const parsed = parseWebhookSecrets(`${generateWebhookSecret()} ${SPEC.secret}`);
    expect(parsed.ok && parsed.keys.map((k) => (k as Uint8Array).length)).toEqual([32, 24]);
  });

  it("parses each value once per isolate, and still judges every value on its own", () => {
    const secret = generateWebhookSecret();
    const first = parseWebhookSecrets(secret);
    expect(parseWebhookSecrets(secret)).toBe(first);
    expect(parseWebhookSecrets("whsec_short").ok).toBe(false);
    // Many other values later, the first is still parsed right (the cache is bounded, not wrong).
    for (let i = 0; i < 40; i++) parseWebhookSecrets(generateWebhookSecret());
    const again = parseWebhookSecrets(secret);
    expect(again.ok && first.ok && again.keys[0]).toEqual(first.ok && first.keys[0]);
  });
});
