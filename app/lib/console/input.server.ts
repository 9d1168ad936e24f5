import { z } from "zod";
import { refusal } from "~/lib/http/responses.server";
import { readMessageUpTo } from "~/lib/http/read-stream.server";

// Everything the console reads from a request goes through a schema, so odd input is a 400 or a default, never a 500.

const MAX_FORM_BYTES = 16 * 1024;

/** A calendar date, YYYY-MM-DD, that exists (zod checks month lengths and leap years). */
export const IsoDateSchema = z.iso.date();

export const TokenSchema = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[\w.:-]+$/);

/** The first value of every key, in a null-prototype record (so "__proto__" is just a key). */
function firstValues(entries: Iterable<[string, string]>): Record<string, string> {
  const values: Record<string, string> = Object.create(null);
  for (const [key, value] of entries) if (!(key in values)) values[key] = value;
  return values;
}

/** The query string's first values, for a schema to parse. Never throws. */
export function queryValues(request: Request): Record<string, string> {
  return firstValues(new URL(request.url).searchParams);
}

async function readFields(request: Request, maxBytes: number): Promise<Record<string, string> | null> {
  const type = (request.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  const read = await readMessageUpTo(request, maxBytes);
  if (!read || read.overflow) return null;
  try {
    if (type === "application/x-www-form-urlencoded" || type === "") {
      return firstValues(new URLSearchParams(new TextDecoder("utf-8", { fatal: true }).decode(read.bytes)));
    }
    if (type === "multipart/form-data") {
      const form = await new Response(read.bytes, { headers: { "content-type": request.headers.get("content-type")! } }).formData();
      const entries: [string, string][] = [];
      for (const [key, value] of form.entries()) {
        if (typeof value !== "string") return null;
        entries.push([key, value]);
      }
      return firstValues(entries);
    }
  } catch {
    return null;
  }
  return null;
}

/** Reads a small form (at most `maxBytes`: 16 KiB, more for an imported definition) through `schema`. Throws admin_bad_request (400) for anything else, never a 500. */
export async function readAdminForm<T>(request: Request, schema: z.ZodType<T>, maxBytes = MAX_FORM_BYTES): Promise<T> {
  const fields = await readFields(request, maxBytes);
  const parsed = fields ? schema.safeParse(fields) : null;
  if (!parsed?.success) throw refusal("admin_bad_request");
  return parsed.data;
}

/** A form id from a console route's params; an impossible one is no form (404 form_not_found). */
export function formIdParam(value: string | undefined): string {
  const parsed = TokenSchema.safeParse(value);
  if (!parsed.success) throw refusal("form_not_found");
  return parsed.data;
}
