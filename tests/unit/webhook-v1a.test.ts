import { createPrivateKey, createPublicKey, sign, verify } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { generateSigningKeyPair } from "~/lib/destinations/signing-secret";
import { parseWebhookSecrets, signWebhook } from "~/lib/sending/signature.server";
// @ts-expect-error - plain ESM receiver of the local sink
import { verifyV1a } from "../../dev/verify-v1a.mjs";
// @ts-expect-error - plain ESM part of the local sink
import { verifyDelivery } from "../../dev/local-sink.mjs";

// Standard Webhooks 1.0's asymmetric signatures (ADR 120): a whsk_ key signs `v1a,<base64>` with
// ed25519 over `id.timestamp.body`, checked here with Node's crypto alone (RFC 8032's first test key,
// whose public key is known), and a rotation's header carries v1a and v1 side by side.

// RFC 8032 section 7.1, TEST 1: the secret key (seed) and its public key.
const SEED = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60";
const PUBLIC = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a";
const WHSK = `whsk_${Buffer.from(SEED + PUBLIC, "hex").toString("base64")}`;
const WHPK = `whpk_${Buffer.from(PUBLIC, "hex").toString("base64")}`;
const HMAC = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const ID = "msg_p5jXN8AQM9LWM0D4loKWxJek";
const BODY = '{"test": 2432232314}';

function keysOf(raw: string) {
  const parsed = parseWebhookSecrets(raw);
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.keys;
}

/** Node's own ed25519 key from the raw public key, as a receiver would build it. */
const publicKey = createPublicKey({
  key: { kty: "OKP", crv: "Ed25519", x: Buffer.from(PUBLIC, "hex").toString("base64url") },
  format: "jwk",
});

describe("v1a signatures", () => {
  it("sign with ed25519 exactly as Node signs with the same key, and verify with the public key alone", async () => {
    const timestamp = 1614265330;
    const header = await signWebhook(keysOf(WHSK), ID, timestamp, BODY);
    expect(header).toMatch(/^v1a,[A-Za-z0-9+/]{86}==$/);
    const signature = Buffer.from(header.slice(4), "base64");
    const content = Buffer.from(`${ID}.${timestamp}.${BODY}`);
    expect(verify(null, content, publicKey, signature)).toBe(true);
    expect(verify(null, Buffer.from(`${ID}.${timestamp}.${BODY} `), publicKey, signature)).toBe(false);
    // Ed25519 is deterministic: Node's signature under the RFC's key is the same bytes.
    const privateKey = createPrivateKey({
      key: { kty: "OKP", crv: "Ed25519", d: Buffer.from(SEED, "hex").toString("base64url"), x: publicKey.export({ format: "jwk" }).x },
      format: "jwk",
    });
    expect(sign(null, content, privateKey).toString("base64")).toBe(header.slice(4));
    // A 32-byte whsk_ (the seed alone) signs the same.
    expect(await signWebhook(keysOf(`whsk_${Buffer.from(SEED, "hex").toString("base64")}`), ID, timestamp, BODY)).toBe(header);
  });

  it("ride beside v1 in one header during a rotation, each verified by its own receiver", async () => {
    const timestamp = Math.floor(Date.now() / 1000);
    const header = await signWebhook(keysOf(`${WHSK} ${HMAC}`), ID, timestamp, BODY);
    expect(header.split(" ").map((part) => part.split(",")[0])).toEqual(["v1a", "v1"]);
    const headers = { "webhook-id": ID, "webhook-timestamp": String(timestamp), "webhook-signature": header };
    expect(verifyV1a([WHPK], BODY, headers)).toBe(true);
    expect(() => new Webhook(HMAC).verify(BODY, headers)).not.toThrow();
    expect(verifyDelivery(WHSK, BODY, headers)).toBe(true);
    expect(verifyDelivery(WHSK, `${BODY} `, headers)).toBe(false);
    expect(verifyV1a([WHPK], BODY, { ...headers, "webhook-timestamp": String(timestamp - 600) })).toBe(false);
  });

  it("come from a key pair the console makes: whsk_ kept, whpk_ shown", async () => {
    const pair = await generateSigningKeyPair();
    expect(pair.secret).toMatch(/^whsk_[A-Za-z0-9+/]{86}==$/);
    expect(pair.publicKey).toMatch(/^whpk_[A-Za-z0-9+/]{43}=$/);
    // The public half of the kept key is the key shown.
    expect(Buffer.from(pair.secret.slice(5), "base64").subarray(32).toString("base64")).toBe(pair.publicKey.slice(5));
    const timestamp = Math.floor(Date.now() / 1000);
    const header = await signWebhook(keysOf(pair.secret), ID, timestamp, BODY);
    expect(
      verifyV1a([pair.publicKey], BODY, { "webhook-id": ID, "webhook-timestamp": String(timestamp), "webhook-signature": header }),
    ).toBe(true);
    expect(parseWebhookSecrets("whsk_c2hvcnQ=")).toMatchObject({ ok: false, reason: expect.stringContaining("ed25519") });
  });
});
