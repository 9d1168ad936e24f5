import { decodeBase64Url, encodeBase64Url } from "~/lib/crypto/base64";
import { hmacKey } from "~/lib/crypto/hmac-key.server";

// The links to files that notifications carry: one file, until it expires, HMAC-SHA-256 under
// FILE_LINK_SECRET (docs/decisions/051).

export const FILE_LINK_TTL_MS = 7 * 86_400_000;
/** Refuses a far-future expiry even when signed (a bug's). */
const MAX_TTL_MS = 31 * 86_400_000;
const encoder = new TextEncoder();

export interface FileLink {
  url: string;
  expiresAt: string;
}

const message = (submissionId: string, fileId: string, expires: number) =>
  encoder.encode(`gatepost-file-link:v1:${submissionId}:${fileId}:${expires}`);

export function filePath(submissionId: string, fileId: string): string {
  return `/files/${encodeURIComponent(submissionId)}/${encodeURIComponent(fileId)}`;
}

/** A link valid for `ttlMs` from `nowMs`, signed with the first secret; null without PUBLIC_URL or a secret. Never throws. */
export async function signFileLink(input: {
  publicUrl: string | null;
  secrets: readonly string[];
  submissionId: string;
  fileId: string;
  nowMs: number;
  ttlMs?: number;
}): Promise<FileLink | null> {
  const { publicUrl, secrets, submissionId, fileId, nowMs, ttlMs = FILE_LINK_TTL_MS } = input;
  if (!publicUrl || secrets.length === 0) return null;
  const expires = Math.floor((nowMs + ttlMs) / 1000);
  const mac = await crypto.subtle.sign("HMAC", await hmacKey(secrets[0]), message(submissionId, fileId, expires));
  const query = new URLSearchParams({ expires: String(expires), signature: encodeBase64Url(mac) });
  return { url: `${publicUrl}${filePath(submissionId, fileId)}?${query}`, expiresAt: new Date(expires * 1000).toISOString() };
}

export type LinkVerdict = "ok" | "expired" | "invalid";

/** "invalid" unless a secret signed exactly these ids and expiry; "expired" from then on. Never throws. */
export async function verifyFileLink(input: {
  secrets: readonly string[];
  submissionId: string;
  fileId: string;
  expires: string | null;
  signature: string | null;
  nowMs: number;
}): Promise<LinkVerdict> {
  const { secrets, submissionId, fileId, nowMs } = input;
  if (!input.expires || !/^\d{1,12}$/.test(input.expires) || !input.signature) return "invalid";
  const mac = decodeBase64Url(input.signature);
  if (!mac || mac.byteLength !== 32) return "invalid";
  const expires = Number(input.expires);
  const signed = message(submissionId, fileId, expires);
  let valid = false;
  for (const secret of secrets) valid ||= await crypto.subtle.verify("HMAC", await hmacKey(secret), mac, signed);
  if (!valid) return "invalid";
  if (expires * 1000 > nowMs + MAX_TTL_MS) return "invalid";
  return expires * 1000 <= nowMs ? "expired" : "ok";
}
