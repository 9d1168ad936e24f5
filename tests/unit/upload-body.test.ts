import { describe, expect, it } from "vitest";
import { applyForm } from "~/forms/apply";
import { defineForm } from "~/forms/schema";
import { MAX_BODY_BYTES, type UploadLimits } from "~/lib/http/body-rules.server";
import { readBody } from "~/lib/http/request-body.server";
import { uploadLimitsOf } from "~/lib/submit/accepted-files.server";
import { validateFields } from "~/lib/submit/validation";

// ADR 050: a multipart post is read once, and a post over a limit (declared, or as it
// streams) is refused at once, without reading the rest; files come back only for file fields, and
// their type is decided by their bytes, whatever the browser claimed.

const MB = 1024 * 1024;
const BOUNDARY = "----gatepost-unit";
const encoder = new TextEncoder();
const KB = 1024;
const LIMITS: UploadLimits = uploadLimitsOf(applyForm)!;
// The same form scaled down (a 128 KiB CV, 256 KiB in all), so the tests of limits move a few hundred
// KiB, not tens of MB: their run time does not depend on the machine's speed or load.
const smallApply = defineForm({
  ...applyForm,
  fields: applyForm.fields.map((field) => (field.name === "cv" ? { ...field, maxBytes: 128 * KB } : field)),
  maxUploadBytes: 256 * KB,
});
const SMALL: UploadLimits = uploadLimitsOf(smallApply)!;
/** Byte-for-byte equality without spreading a large array into a million numbers. */
const sameBytes = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));

function part(name: string, value: string | Uint8Array, file?: { name: string; type?: string }): Uint8Array {
  const disposition = file ? `form-data; name="${name}"; filename="${file.name}"` : `form-data; name="${name}"`;
  const type = file ? `\r\nContent-Type: ${file.type ?? "application/octet-stream"}` : "";
  const head = encoder.encode(`--${BOUNDARY}\r\nContent-Disposition: ${disposition}${type}\r\n\r\n`);
  const body = typeof value === "string" ? encoder.encode(value) : value;
  return concat(head, body, encoder.encode("\r\n"));
}

function concat(...chunks: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}

const body = (...parts: Uint8Array[]) => concat(...parts, encoder.encode(`--${BOUNDARY}--\r\n`));
const pdf = (size: number) => concat(encoder.encode("%PDF-1.7\n"), new Uint8Array(Math.max(0, size - 9)).fill(0x41));

/** A request whose body is served in `chunk`-byte pieces, counting what was pulled. */
function streamed(bytes: Uint8Array, { chunk = 64 * 1024, length }: { chunk?: number; length?: number } = {}) {
  const seen = { pulled: 0 };
  let at = 0;
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (at >= bytes.byteLength) return controller.close();
        const piece = bytes.subarray(at, at + chunk);
        at += piece.byteLength;
        seen.pulled += piece.byteLength;
        controller.enqueue(piece);
      },
    },
    { highWaterMark: 0 },
  );
  const headers: Record<string, string> = { "content-type": `multipart/form-data; boundary=${BOUNDARY}` };
  if (length !== undefined) headers["content-length"] = String(length);
  const request = new Request("http://localhost/f/apply", { method: "POST", body: stream, headers, duplex: "half" } as RequestInit);
  return { request, seen };
}

/**
 * A request whose body behaves as workerd's does: a default reader gets at most 4 KiB a read, a BYOB
 * reader also offers workerd's readAtLeast. Counts the reads of each kind.
 */
function workerdLike(bytes: Uint8Array) {
  const reads = { small: 0, atLeast: 0 };
  let at = 0;
  const take = (max: number) => {
    const piece = bytes.slice(at, at + max);
    at += piece.byteLength;
    return piece;
  };
  const done = () => at >= bytes.byteLength;
  const body = {
    getReader(options?: { mode?: "byob" }) {
      if (options?.mode === "byob") {
        return {
          async readAtLeast(min: number, view: Uint8Array) {
            reads.atLeast++;
            const piece = take(Math.max(min, view.byteLength));
            view.set(piece);
            return { done: done() && piece.byteLength === 0, value: view.subarray(0, piece.byteLength) };
          },
          async cancel() {},
          releaseLock() {},
        };
      }
      return {
        async read() {
          if (done()) return { done: true, value: undefined };
          reads.small++;
          return { done: false, value: take(4096) };
        },
        async cancel() {},
        releaseLock() {},
      };
    },
  };
  const headers = new Headers({ "content-type": `multipart/form-data; boundary=${BOUNDARY}` });
  return { request: { headers, body } as unknown as Request, reads };
}

describe("reading a post with files", () => {
  it("hands back the text fields and each file's bytes, for file fields only", async () => {
    const cv = pdf(2000);
    const { request } = streamed(body(part("name", "Ada"), part("cv", cv, { name: "cv.pdf", type: "application/pdf" })));
    const result = await readBody(request, LIMITS);
    expect(result.ok && result.fields).toEqual({ name: "Ada" });
    expect(result.ok && result.files.map((f) => [f.field, f.name, f.bytes.byteLength])).toEqual([["cv", "cv.pdf", 2000]]);
    expect(result.ok && sameBytes(result.files[0].bytes, cv)).toBe(true);
  });

  it("reads a streamed body 64 KiB a read where the runtime offers readAtLeast, not workerd's 4 KiB pieces", async () => {
    const cv = pdf(MB);
    const { request, reads } = workerdLike(body(part("name", "Ada"), part("cv", cv, { name: "cv.pdf", type: "application/pdf" })));
    const result = await readBody(request, LIMITS);
    expect(result.ok && result.fields).toEqual({ name: "Ada" });
    expect(result.ok && sameBytes(result.files[0].bytes, cv)).toBe(true);
    expect(reads.small).toBe(0);
    // 1 MiB and a few headers in 64 KiB reads: 17, and one more that finds the end.
    expect(reads.atLeast).toBeLessThanOrEqual(18);
  });

  it("skips the empty part an <input type=file> left empty sends", async () => {
    const { request } = streamed(body(part("name", "Ada"), part("cv", "", { name: "" })));
    expect(await readBody(request, LIMITS)).toEqual({ ok: true, fields: { name: "Ada" }, files: [] });
  });

  it("refuses a file in a field that takes none, and any file on a form without file fields", async () => {
    const cv = pdf(100);
    const posted = () => streamed(body(part("name", cv, { name: "cv.pdf" }))).request;
    expect(await readBody(posted(), LIMITS)).toEqual({ ok: false, code: "file_not_accepted" });
    expect(await readBody(posted(), null)).toEqual({ ok: false, code: "file_not_accepted" });
  });

  it("refuses a declared Content-Length over the form's total without reading a byte", async () => {
    const { request, seen } = streamed(body(part("cv", pdf(100), { name: "cv.pdf" })), {
      length: LIMITS.maxUploadBytes + MAX_BODY_BYTES + 1,
    });
    expect(await readBody(request, LIMITS)).toEqual({ ok: false, code: "upload_too_large" });
    expect(seen.pulled).toBe(0);
  });

  it("stops reading a body that streams past the form's total, whatever it declared", async () => {
    // 1 MiB of parts for a 256 KiB form, undeclared: reading stops one chunk past 256 KiB + 64 KiB.
    const huge = body(...Array.from({ length: 32 }, (_, i) => part(`t${i}`, new Uint8Array(32 * KB).fill(0x61))));
    const { request, seen } = streamed(huge, { chunk: 16 * KB });
    const result = await readBody(request, SMALL);
    expect(result.ok).toBe(false);
    expect(!result.ok && ["upload_too_large", "file_too_large", "body_too_large"]).toContain(!result.ok && result.code);
    expect(seen.pulled).toBeLessThanOrEqual(SMALL.maxUploadBytes + MAX_BODY_BYTES + 16 * KB);
    expect(seen.pulled).toBeLessThan(huge.byteLength);
  });

  it("refuses a file over its field's limit as it arrives, naming the field, and reads no further", async () => {
    const big = pdf(SMALL.maxBytes.get("cv")! + 1);
    const after = new Uint8Array(MB);
    const { request, seen } = streamed(body(part("cv", big, { name: "cv.pdf" }), part("more", after)), { chunk: 16 * KB });
    expect(await readBody(request, SMALL)).toEqual({ ok: false, code: "file_too_large", field: "cv" });
    expect(seen.pulled).toBeLessThan(big.byteLength + 2 * 16 * KB);
  });

  it("refuses files that together are over the form's total, and text over 64 KiB, each by its code", async () => {
    const two = defineForm({
      ...smallApply,
      fields: [...smallApply.fields, { name: "extra", type: "file", label: "Extra", hint: "h", maxBytes: 128 * KB }],
    });
    const limits = uploadLimitsOf(two)!;
    const files = streamed(body(part("cv", pdf(120 * KB), { name: "a.pdf" }), part("extra", pdf(120 * KB), { name: "b.pdf" })), {
      chunk: 16 * KB,
    });
    expect(await readBody(files.request, { ...limits, maxUploadBytes: 200 * KB })).toEqual({ ok: false, code: "upload_too_large" });
    const text = streamed(body(part("name", "a".repeat(MAX_BODY_BYTES + 1))));
    expect(await readBody(text.request, LIMITS)).toEqual({ ok: false, code: "body_too_large" });
  });

  it("refuses invalid UTF-8 in a text part and a body that ends before its closing boundary", async () => {
    const bad = streamed(body(part("name", new Uint8Array([0x41, 0xc3, 0x28]))));
    expect(await readBody(bad.request, LIMITS)).toEqual({ ok: false, code: "invalid_text" });
    const cut = streamed(part("cv", pdf(100), { name: "cv.pdf" }));
    expect(await readBody(cut.request, LIMITS)).toEqual({ ok: false, code: "malformed_body" });
  });
});

describe("validating files", () => {
  const fields = { name: "Ada", email: "ada@example.org" };
  const html = encoder.encode("<!doctype html><script>alert(1)</script>");
  const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]);

  it("takes a PDF by its bytes, whatever its name says", () => {
    const result = validateFields(applyForm, fields, [{ field: "cv", name: "cv.txt", bytes: pdf(500) }]);
    expect(result.ok && result.files.map((f) => [f.field, f.type])).toEqual([["cv", "application/pdf"]]);
  });

  it.each([
    ["HTML named cv.pdf", "cv.pdf", html],
    ["a PNG named cv.pdf", "cv.pdf", png],
  ])("refuses %s at the field, since its bytes are not a PDF", (_label, name, bytes) => {
    const result = validateFields(applyForm, fields, [{ field: "cv", name, bytes }]);
    expect(result).toMatchObject({ ok: false, errors: { cv: "Your CV must be a PDF file, and “cv.pdf” is not one." } });
  });

  it("requires the file, counts files, and refuses an empty one or text where a file belongs", () => {
    expect(validateFields(applyForm, fields, [])).toMatchObject({ ok: false, errors: { cv: "Choose a file for Your CV." } });
    const two = [
      { field: "cv", name: "a.pdf", bytes: pdf(100) },
      { field: "cv", name: "b.pdf", bytes: pdf(100) },
    ];
    expect(validateFields(applyForm, fields, two)).toMatchObject({ ok: false, errors: { cv: "Your CV takes at most 1 file." } });
    expect(validateFields(applyForm, fields, [{ field: "cv", name: "a.pdf", bytes: new Uint8Array() }])).toMatchObject({
      ok: false,
      errors: { cv: "“a.pdf” is empty: choose the file again." },
    });
    expect(validateFields(applyForm, { ...fields, cv: "not a file" }, [])).toMatchObject({
      ok: false,
      errors: { cv: "Your CV must be sent as a file, in a multipart/form-data post." },
    });
  });
});
