import { decodeBase64Url, encodeBase64Url } from "~/lib/crypto/base64url";
import { hmacKey } from "~/lib/crypto/hmac-key.server";

// The links to uploaded files that notifications carry (docs/decisions/051): a stable Gatepost URL,
// /files/<submission>/<file>, with an expiry time and an HMAC-SHA-256 over both ids and that time
// under FILE_LINK_SECRET. Whoever holds a link can fetch that one file until it expires, and nothing
// else; the console needs no link (a signed-in user downloads through /admin/files/…). Each delivery
// attempt signs its links afresh, so a retry or a redelivery carries links that run from then.

export const FILE_LINK_TTL_MS = 7 * 86_400_000;
/** The longest expiry a link may carry, so a link signed with a bug's far-future time is refused too. */
const MAX_TTL_MS = 31 * 86_400_000;
const encoder = new TextEncoder();

export interface FileLink {
  url: string;
  /** ISO 8601, UTC. */
  expiresAt: string;
}

const message = (submissionId: string, fileId: string, expires: number) =>
  encoder.encode(`gatepost-file-link:v1:${submissionId}:${fileId}:${expires}`);

/** The download path of one file (the console's own path is /admin/files/…). */
export function filePath(submissionId: string, fileId: string): string {
  return `/files/${encodeURIComponent(submissionId)}/${encodeURIComponent(fileId)}`;
}

/**
 * A signed link to one file, valid for `ttlMs` from `nowMs`; null without PUBLIC_URL or without a
 * FILE_LINK_SECRET (the first of several signs). Never throws.
 */
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

/**
 * Checks a link's query against any of the secrets: "invalid" unless one of them signed exactly these
 * ids and this expiry, then "expired" once `nowMs` has reached it. Never throws.
 */
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
  // crypto.subtle.verify compares in constant time.
  for (const secret of secrets) valid ||= await crypto.subtle.verify("HMAC", await hmacKey(secret), mac, signed);
  if (!valid) return "invalid";
  if (expires * 1000 > nowMs + MAX_TTL_MS) return "invalid";
  return expires * 1000 <= nowMs ? "expired" : "ok";
}
