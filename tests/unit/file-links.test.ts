import { describe, expect, it } from "vitest";
import { FILE_LINK_TTL_MS, signFileLink, verifyFileLink } from "~/lib/uploads/file-links.server";

// ADR 051: a link in a notification fetches one file, until it expires, and nothing else.

const SECRET = "file-link-test-secret-0123456789abcdef-xyz";
const OLD = "file-link-old-secret-0123456789abcdef-xyzw";
const NOW = Date.parse("2026-11-22T17:00:00.000Z");
const ids = { submissionId: "5f0c6a3e-2b1d-4c8e-9a7f-3d2e1b0c9a8f", fileId: "01a20433-4a80-7c3e-9a41-2d5e8b7f6c10" };

async function link(secrets = [SECRET], nowMs = NOW) {
  const made = await signFileLink({ publicUrl: "https://forms.example.org", secrets, ...ids, nowMs });
  if (!made) throw new Error("no link");
  const url = new URL(made.url);
  return { made, url, expires: url.searchParams.get("expires"), signature: url.searchParams.get("signature") };
}

describe("file links", () => {
  it("point at /files/<submission>/<file> on the public origin and expire after a week", async () => {
    const { made, url } = await link();
    expect(`${url.origin}${url.pathname}`).toBe(`https://forms.example.org/files/${ids.submissionId}/${ids.fileId}`);
    expect(made.expiresAt).toBe(new Date(NOW + FILE_LINK_TTL_MS).toISOString());
    expect(FILE_LINK_TTL_MS).toBe(7 * 86_400_000);
  });

  it("verify until they expire, then say so", async () => {
    const { expires, signature } = await link();
    const verify = (nowMs: number) => verifyFileLink({ secrets: [SECRET], ...ids, expires, signature, nowMs });
    expect(await verify(NOW)).toBe("ok");
    expect(await verify(NOW + FILE_LINK_TTL_MS - 1000)).toBe("ok");
    expect(await verify(NOW + FILE_LINK_TTL_MS)).toBe("expired");
  });

  it("are refused for any other file, submission, expiry or secret, and when cut or missing", async () => {
    const { expires, signature } = await link();
    const verify = (over: Partial<Parameters<typeof verifyFileLink>[0]>) =>
      verifyFileLink({ secrets: [SECRET], ...ids, expires, signature, nowMs: NOW, ...over });
    expect(await verify({ fileId: "01a20433-4a80-7c3e-9a41-2d5e8b7f6c11" })).toBe("invalid");
    expect(await verify({ submissionId: "another" })).toBe("invalid");
    expect(await verify({ expires: String(Number(expires) + 86_400) })).toBe("invalid");
    expect(await verify({ secrets: ["another-secret-0123456789abcdef-0123456789"] })).toBe("invalid");
    expect(await verify({ signature: signature!.slice(0, -2) })).toBe("invalid");
    expect(await verify({ signature: null })).toBe("invalid");
    expect(await verify({ expires: "soon" })).toBe("invalid");
  });

  it("keep working across a rotation: the first secret signs, every one verifies", async () => {
    const before = await link([OLD]);
    expect(await verifyFileLink({ secrets: [SECRET, OLD], ...ids, expires: before.expires, signature: before.signature, nowMs: NOW })).toBe(
      "ok",
    );
    const after = await link([SECRET, OLD]);
    expect(await verifyFileLink({ secrets: [SECRET], ...ids, expires: after.expires, signature: after.signature, nowMs: NOW })).toBe("ok");
  });

  it("are not made without a public origin or a secret", async () => {
    expect(await signFileLink({ publicUrl: null, secrets: [SECRET], ...ids, nowMs: NOW })).toBeNull();
    expect(await signFileLink({ publicUrl: "https://forms.example.org", secrets: [], ...ids, nowMs: NOW })).toBeNull();
  });

  it("refuse an expiry further off than a link is ever signed for, even with a good signature", async () => {
    const made = await signFileLink({ publicUrl: "https://f.example", secrets: [SECRET], ...ids, nowMs: NOW, ttlMs: 400 * 86_400_000 });
    const url = new URL(made!.url);
    const verdict = await verifyFileLink({
      secrets: [SECRET],
      ...ids,
      expires: url.searchParams.get("expires"),
      signature: url.searchParams.get("signature"),
      nowMs: NOW,
    });
    expect(verdict).toBe("invalid");
  });
});
