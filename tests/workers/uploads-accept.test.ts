import { env } from "cloudflare:test";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { sweepOrphanedFiles, SWEEP_GRACE_MS } from "~/lib/uploads/orphan-sweep.server";
import { appFetch, clearTables, countRows, multipartPost, pdfBytes, signedStamp, standin, standinToken, testEnv } from "./helpers";
import { applyPost, APPLY, bucketKeys, clearBucket, clearCursors, instrumentedBucket, sha256Hex } from "./upload-helpers";

// ADR 050: a post with files is read once within its limits, its files are judged by their bytes,
// Turnstile is asked, and only then do the files go to R2 (under random keys) and the submission to
// D1 in its one round trip. A post refused at any step leaves no object and no row.

beforeEach(async () => {
  await standin.reset();
  await clearTables();
  await clearBucket();
  await clearCursors();
});

type StoredCv = { id: string; name: string; type: string; size: number; sha256: string };

async function onlySubmission() {
  const row = await env.DB.prepare("SELECT id, fields, status FROM submissions").first<{ id: string; fields: string; status: string }>();
  return { id: row!.id, status: row!.status, fields: JSON.parse(row!.fields) as { name: string; cv: StoredCv[] } };
}

describe("an accepted post with a file", () => {
  it("stores the CV in R2 under its random id, after Turnstile, and describes it in the submission", async () => {
    const cv = pdfBytes(50_000);
    const response = await appFetch(applyPost({}, [{ field: "cv", name: "../secret/Ada CV.pdf", bytes: cv, type: "text/html" }]));
    expect(response.status).toBe(303);
    expect(await standin.calls()).toHaveLength(1);
    const { id, fields } = await onlySubmission();
    expect(fields.name).toBe(APPLY.name);
    expect(fields.cv).toEqual([
      {
        id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
        name: "Ada CV.pdf",
        type: "application/pdf",
        size: 50_000,
        sha256: await sha256Hex(cv),
      },
    ]);
    // The key is the random id alone: nothing of the name, and the browser's "text/html" is nowhere.
    expect(await bucketKeys()).toEqual([`files/${fields.cv[0].id}`]);
    const object = await env.UPLOADS.get(`files/${fields.cv[0].id}`);
    expect(new Uint8Array(await object!.arrayBuffer())).toEqual(cv);
    expect(object!.customMetadata).toEqual({ submission: id, field: "cv" });
    expect(object!.httpMetadata?.contentType).toBe("application/pdf");
  });

  it("takes a multipart post to the API from another site's backend too", async () => {
    const request = multipartPost(
      "/api/forms/apply/submissions",
      { ...APPLY, "cf-turnstile-response": standinToken({ action: "apply" }) },
      [{ field: "cv", name: "cv.pdf", bytes: pdfBytes(2000) }],
      { Accept: "application/json" },
    );
    const response = await appFetch(request);
    expect(response.status).toBe(201);
    expect(await bucketKeys()).toHaveLength(1);
  });
});

describe("a refused post leaves nothing in R2 or D1", () => {
  const before = async () => ({ keys: await bucketKeys(), rows: await countRows("submissions") });

  it.each<[string, number, string, () => Request, Partial<Record<string, string>>]>([
    [
      "HTML named cv.pdf",
      422,
      "validation_failed",
      () =>
        applyPost({}, [
          {
            field: "cv",
            name: "cv.pdf",
            bytes: new TextEncoder().encode("<html><script>alert(1)</script>") as Uint8Array<ArrayBuffer>,
            type: "application/pdf",
          },
        ]),
      {},
    ],
    ["a missing file", 422, "validation_failed", () => applyPost({}, []), {}],
    [
      "a file over the field's 10 MB",
      413,
      "file_too_large",
      () => applyPost({}, [{ field: "cv", name: "big.pdf", bytes: pdfBytes(10 * 1024 * 1024 + 1) }]),
      {},
    ],
    [
      "a file in a field that takes none",
      415,
      "file_not_accepted",
      () => applyPost({}, [{ field: "name", name: "cv.pdf", bytes: pdfBytes(100) }]),
      {},
    ],
    ["a bad e-mail address", 422, "validation_failed", () => applyPost({ email: "nope" }), {}],
    ["a missing token", 400, "turnstile_token_missing", () => applyPost({ "cf-turnstile-response": "" }), {}],
    [
      "a failed captcha",
      400,
      "turnstile_invalid_token",
      () => applyPost(),
      { TURNSTILE_SECRET_KEY: "2x0000000000000000000000000000000AA" },
    ],
    [
      "an expired stamp",
      400,
      "form_expired",
      () =>
        applyPost({
          _gp_ts: signedStamp("apply", Date.now() - 25 * 3_600_000, "a6f1c2e4-0b1d-4c8e-9a7f-3d2e1b0c9a8f"),
          _gp_sid: "a6f1c2e4-0b1d-4c8e-9a7f-3d2e1b0c9a8f",
        }),
      {},
    ],
    [
      "another site's origin",
      403,
      "origin_not_allowed",
      () =>
        multipartPost(
          "/api/forms/apply/submissions",
          { ...APPLY, "cf-turnstile-response": standinToken({ action: "apply" }) },
          [{ field: "cv", name: "cv.pdf", bytes: pdfBytes(100) }],
          { Origin: "https://evil.example", Accept: "application/json" },
        ),
      {},
    ],
  ])("%s (%i %s)", async (_label, status, code, request, overrides) => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const was = await before();
    const response = await appFetch(request(), testEnv(overrides));
    expect(response.status).toBe(status);
    expect(response.headers.get("Gatepost-Error-Code")).toBe(code);
    expect(await before()).toEqual(was);
  });

  it("a body that streams past the form's limit is cut off at once (413), whatever it declares", async () => {
    const cv = pdfBytes(12 * 1024 * 1024);
    const whole = await new Response(
      (() => {
        const form = new FormData();
        form.append("cv", new File([cv], "cv.pdf"));
        return form;
      })(),
    );
    const type = whole.headers.get("content-type")!;
    let pulled = 0;
    const source = whole.body!.getReader();
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await source.read();
        if (done) return controller.close();
        pulled += value.byteLength;
        controller.enqueue(value);
      },
    });
    const response = await appFetch(
      new Request("http://localhost/api/forms/apply/submissions", {
        method: "POST",
        body: stream,
        headers: { "content-type": type, "CF-Connecting-IP": "198.51.100.20" },
      }),
    );
    expect(response.status).toBe(413);
    expect(pulled).toBeLessThan(cv.byteLength);
    expect(await bucketKeys()).toEqual([]);
  });

  it("refused before Turnstile when the Worker has no R2 binding: the token is not spent", async () => {
    const { UPLOADS: _gone, ...rest } = testEnv();
    const response = await appFetch(applyPost(), rest as Env);
    expect(response.status).toBe(500);
    expect(response.headers.get("Gatepost-Error-Code")).toBe("uploads_not_configured");
    expect(await standin.calls()).toHaveLength(0);
    expect(await countRows("submissions")).toBe(0);
  });

  it("over the rate limit in the one batch: the CV was put, and is deleted again before the answer", async () => {
    const appEnv = testEnv({ FORM_RATE_LIMIT_PER_MINUTE: "1" });
    expect((await appFetch(applyPost(), appEnv)).status).toBe(303);
    const first = await bucketKeys();
    const { bucket, ops } = instrumentedBucket(env.UPLOADS);
    const refused = await appFetch(applyPost(), { ...appEnv, UPLOADS: bucket });
    expect(refused.status).toBe(429);
    expect(ops).toEqual(["put", "delete"]);
    expect(await bucketKeys()).toEqual(first);
    expect(await countRows("submissions")).toBe(1);
  });

  it("a repeat of one rendered form: the same CV gets the first answer, another CV is refused, and neither leaves an object", async () => {
    const sid = crypto.randomUUID();
    const cv = pdfBytes(3000, "first");
    const post = (bytes: Uint8Array<ArrayBuffer>) =>
      applyPost({ _gp_sid: sid, _gp_ts: signedStamp("apply", Date.now() - 10_000, sid) }, [{ field: "cv", name: "cv.pdf", bytes }]);
    const first = await appFetch(post(cv));
    expect(first.status).toBe(303);
    const kept = await bucketKeys();
    expect(kept).toHaveLength(1);
    const again = await appFetch(post(cv));
    expect(again.headers.get("location")).toBe(first.headers.get("location"));
    const other = await appFetch(post(pdfBytes(3000, "second")));
    expect(other.status).toBe(422);
    expect(other.headers.get("Gatepost-Error-Code")).toBe("idempotency_key_reused");
    expect(await bucketKeys()).toEqual(kept);
    expect(await countRows("submissions")).toBe(1);
  });

  it("an R2 failure refuses with 503 and stores nothing in D1", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const { bucket } = instrumentedBucket(env.UPLOADS, { fail: ["put"] });
    const response = await appFetch(applyPost(), { ...testEnv(), UPLOADS: bucket });
    expect(response.status).toBe(503);
    expect(response.headers.get("Gatepost-Error-Code")).toBe("uploads_unavailable");
    expect(await countRows("submissions")).toBe(0);
    expect(await bucketKeys()).toEqual([]);
  });

  it("a D1 failure after the put leaves the object to the orphan sweep, which removes it once its grace is over", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const failing = new Proxy(env.DB, {
      get: (target, key) =>
        key === "batch"
          ? () => Promise.reject(new Error("D1 is down (test)"))
          : (Reflect.get(target, key)?.bind?.(target) ?? Reflect.get(target, key)),
    });
    const response = await appFetch(applyPost(), { ...testEnv(), DB: failing });
    expect(response.status).toBe(503);
    expect(await countRows("submissions")).toBe(0);
    // D1 may have stored the submission after all, so the object stays until the sweep can tell.
    expect(await bucketKeys()).toHaveLength(1);
    expect(await sweepOrphanedFiles(env.DB, env.UPLOADS, Date.now())).toEqual({ judged: 0, removed: 0 });
    expect(await sweepOrphanedFiles(env.DB, env.UPLOADS, Date.now() + SWEEP_GRACE_MS + 1000)).toEqual({ judged: 1, removed: 1 });
    expect(await bucketKeys()).toEqual([]);
  });
});

describe("a quarantined post", () => {
  it("keeps its files' names and digests, never their bytes", async () => {
    const cv = pdfBytes(2048);
    const response = await appFetch(applyPost({ _gp_hp: "filled by a bot" }, [{ field: "cv", name: "cv.pdf", bytes: cv }]));
    expect(response.status).toBe(303);
    const { status, fields } = await onlySubmission();
    expect(status).toBe("quarantined");
    expect(fields.cv).toMatchObject([{ name: "cv.pdf", type: "application/pdf", size: 2048, sha256: await sha256Hex(cv) }]);
    expect(await bucketKeys()).toEqual([]);
  });
});
