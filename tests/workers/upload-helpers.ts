import { env } from "cloudflare:test";
import { multipartPost, pdfBytes, standinToken, type PostedFile } from "./helpers";

// Fixtures for the uploads tests: the local R2 bucket (the Worker's own UPLOADS binding from
// wrangler.toml, under Miniflare), the apply form's posts, and buckets that count or fail.

export const APPLY = { name: "Ada Lovelace", email: "ada@example.org" };

/** Every key in the local bucket, sorted. */
export async function bucketKeys(bucket: R2Bucket = env.UPLOADS): Promise<string[]> {
  const keys: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await bucket.list({ cursor, limit: 1000 });
    keys.push(...page.objects.map((object) => object.key));
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return keys.sort();
}

export async function clearBucket(): Promise<void> {
  const keys = await bucketKeys();
  if (keys.length > 0) await env.UPLOADS.delete(keys);
}

export async function clearCursors(): Promise<void> {
  await env.DB.prepare("DELETE FROM maintenance_cursors").run();
}

/** A post of the apply form from its own page, with a CV unless `files` says otherwise. */
export function applyPost(
  fields: Record<string, string> = {},
  files: readonly PostedFile[] = [{ field: "cv", name: "Ada Lovelace CV.pdf", bytes: pdfBytes(4096), type: "application/pdf" }],
  headers: Record<string, string> = {},
): Request {
  return multipartPost("/f/apply", { ...APPLY, "cf-turnstile-response": standinToken({ action: "apply" }), ...fields }, files, headers);
}

export async function sha256Hex(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export type BucketOp = "put" | "get" | "head" | "delete" | "list";

/** The bucket with a log of its operations, and optionally some of them failing. */
export function instrumentedBucket(bucket: R2Bucket, { fail = [] }: { fail?: BucketOp[] } = {}) {
  const ops: BucketOp[] = [];
  const wrapped = new Proxy(bucket, {
    get(target, key) {
      const value = Reflect.get(target, key);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        ops.push(key as BucketOp);
        if (fail.includes(key as BucketOp)) return Promise.reject(new Error(`R2 ${String(key)} failed (test)`));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { bucket: wrapped, ops };
}
