import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildPayload } from "~/lib/sending/standard-webhook.server";
import { parseWebhookSecrets, signWebhook } from "~/lib/sending/signature.server";
import { generateSigningSecret as generateWebhookSecret } from "~/lib/destinations/signing-secret";

// docs/webhooks.md must stay true: its example request is re-signed here, and its Node receiver is run
// as written against Gatepost's own signer.
const doc = readFileSync(new URL("../../docs/webhooks.md", import.meta.url), "utf8");
const SPEC_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

function keys(raw: string) {
  const parsed = parseWebhookSecrets(raw);
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.keys;
}

describe("the example request in docs/webhooks.md", () => {
  const block = /```http\n([\s\S]*?)```/.exec(doc)?.[1] ?? "";
  const header = (name: string) => new RegExp(`^${name}: (.+)$`, "m").exec(block)?.[1] ?? "";
  const body = block.trim().split("\n").pop() ?? "";

  it("carries a signature a reader can reproduce with the spec's example secret", async () => {
    expect(header("webhook-id")).toMatch(/^msg_/);
    const signature = await signWebhook(keys(SPEC_SECRET), header("webhook-id"), Number(header("webhook-timestamp")), body);
    expect(header("webhook-signature")).toBe(signature);
    expect(doc).toContain(`\`${signature}\``);
  });

  it("has exactly the shape buildPayload produces, a file with its link among it", () => {
    const sample = JSON.parse(body);
    expect(sample.submission.files).toHaveLength(1);
    const files = sample.submission.files.map((f: Record<string, string & number>) => ({
      field: f.field,
      label: f.field,
      file: { id: f.id, name: f.name, type: f.type, size: f.size, sha256: f.sha256 },
      link: { url: f.url, expiresAt: f.url_expires_at },
    }));
    const rebuilt = buildPayload(
      {
        id: sample.submission.id,
        formId: sample.form,
        formVersion: sample.submission.form_version,
        test: sample.submission.test,
        fields: sample.submission.fields,
        receivedAt: sample.submission.received_at,
        status: "accepted",
        quarantineReason: null,
        verification: {
          hostname: sample.verification.hostname,
          action: sample.verification.action,
          challengeTs: sample.verification.challenge_ts,
        },
      },
      files,
    );
    expect(JSON.stringify(rebuilt)).toBe(body);
  });
});

describe("the Node receiver in docs/webhooks.md", () => {
  let child: ChildProcess;
  let origin = "";
  let dir = "";
  const current = generateWebhookSecret();

  beforeAll(async () => {
    const code = /<!-- receiver:start -->\n```js\n([\s\S]*?)```\n<!-- receiver:end -->/.exec(doc)?.[1];
    if (!code) throw new Error("docs/webhooks.md lost its receiver block");
    dir = mkdtempSync(path.join(tmpdir(), "gatepost-receiver-"));
    writeFileSync(path.join(dir, "receiver.mjs"), code);
    // The receiver holds two secrets, as during a key rotation.
    child = spawn(process.execPath, [path.join(dir, "receiver.mjs")], {
      env: { ...process.env, PORT: "0", WEBHOOK_SECRET: `${current} ${SPEC_SECRET}` },
      stdio: ["ignore", "pipe", "pipe"],
    });
    origin = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("the receiver did not start")), 10_000);
      child.stdout!.on("data", (chunk) => {
        const match = /listening on (http:\/\/\S+)/.exec(String(chunk));
        if (match) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      });
      child.once("exit", (code) => reject(new Error(`the receiver exited with ${code}`)));
    });
  });

  afterAll(() => {
    child?.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  async function post(id: string, body: string, secret: string, timestamp = Math.floor(Date.now() / 1000), tamper = false) {
    const signature = await signWebhook(keys(secret), id, timestamp, body);
    const res = await fetch(origin, {
      method: "POST",
      headers: { "webhook-id": id, "webhook-timestamp": String(timestamp), "webhook-signature": signature },
      body: tamper ? body.replace("Ada", "Eve") : body,
    });
    return [res.status, await res.text()];
  }

  const body = JSON.stringify({
    type: "submission.created",
    form: "contact",
    submission: { id: "s1", received_at: "x", fields: { name: "Ada" } },
    verification: null,
  });

  it("accepts a fresh delivery signed with either of its secrets, once", async () => {
    expect(await post("msg_one", body, current)).toEqual([200, "ok"]);
    expect(await post("msg_two", body, SPEC_SECRET)).toEqual([200, "ok"]);
    expect(await post("msg_one", body, current)).toEqual([200, "duplicate"]);
  });

  it("refuses a tampered body, an unknown secret and a stale timestamp", async () => {
    expect((await post("msg_three", body, current, undefined, true))[0]).toBe(401);
    expect((await post("msg_four", body, generateWebhookSecret()))[0]).toBe(401);
    expect((await post("msg_five", body, current, Math.floor(Date.now() / 1000) - 600))[0]).toBe(401);
  });
});
