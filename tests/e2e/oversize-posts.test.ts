import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";

// ADR 098: under `wrangler dev`, started as `npm start` starts it (scripts/worker-dev.mjs), a post over
// the size limit gets Gatepost's 413 and its catalogue code, declared or streamed, with or without
// `Expect: 100-continue`, from curl, fetch and node:http, and the same keep-alive connection serves the
// next request. Each answer comes within a bound well under the drain's 15 s cap.

const run = promisify(execFile);
/** The apply form takes one file of up to 10 MiB (app/forms/apply.ts): 12 MB is over it, and over the post's limit. */
const OVER_UPLOAD = 12 * 1000 * 1000;
/** Over the 64 KiB a form without files takes, and what curl sends `Expect: 100-continue` for (over 1 MiB). */
const OVER_BODY = 2 * 1000 * 1000;
/** What one over-size post may take here: curl waits 1 s for a 100 Continue, the rest is loopback copying. */
const BOUND_MS = 10_000;

let dir = "";
let big = "";
let twoMb = "";

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), "gatepost-oversize-"));
  big = path.join(dir, "big.pdf");
  twoMb = path.join(dir, "two.txt");
  writeFileSync(big, Buffer.alloc(OVER_UPLOAD, 0x61));
  writeFileSync(twoMb, Buffer.alloc(OVER_BODY, 0x61));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface CurlAnswer {
  status: number;
  code: string;
  /** New connections curl opened for this transfer: 0 when it reused the previous one. */
  connects: number;
  ms: number;
}

/** Runs curl with each transfer's `args` (joined by --next, so one connection is reused) and reads what each got. */
async function curl(transfers: string[][]): Promise<CurlAnswer[]> {
  // "|" between fields: a header the answer lacks prints as nothing.
  const format = "%{http_code}|%header{gatepost-error-code}|%{num_connects}|%{time_total}\\n";
  const args = transfers.flatMap((each, i) => [...(i > 0 ? ["--next"] : []), "-sS", "-m", "30", "-o", "/dev/null", "-w", format, ...each]);
  const { stdout } = await run("curl", args, { timeout: 60_000 });
  return stdout
    .trim()
    .split("\n")
    .map((line) => {
      const [status, code, connects, seconds] = line.trim().split("|");
      return { status: Number(status), code, connects: Number(connects), ms: Number(seconds) * 1000 };
    });
}

describe("an over-size post under wrangler dev, from curl", () => {
  const site = () => inject("baseUrl");

  it.each([
    ["declared, Expect: 100-continue", ["-H", "Expect: 100-continue"], "upload_too_large"],
    ["declared, no Expect", ["-H", "Expect:"], "upload_too_large"],
    ["chunked, Expect: 100-continue", ["-H", "Transfer-Encoding: chunked", "-H", "Expect: 100-continue"], "file_too_large"],
    ["chunked, no Expect", ["-H", "Transfer-Encoding: chunked", "-H", "Expect:"], "file_too_large"],
  ])("a 12 MB file, %s: 413 with its code, and the connection serves the next request", async (_, headers, code) => {
    const [refused, next] = await curl([
      [...headers, "-F", "name=Ada", "-F", `cv=@${big};type=application/pdf`, `${site()}/f/apply`],
      [`${site()}/healthz`],
    ]);
    expect(refused).toMatchObject({ status: 413, code });
    expect(refused.ms).toBeLessThan(BOUND_MS);
    expect(next).toMatchObject({ status: 200, connects: 0 });
  });

  it.each([
    ["declared (curl's own Expect: 100-continue)", []],
    ["chunked", ["-H", "Transfer-Encoding: chunked"]],
  ])("2 MB to a form without files, %s: 413 body_too_large, three times on one connection", async (_, headers) => {
    const post = [...headers, "--data-binary", `@${twoMb}`, `${site()}/f/contact`];
    const answers = await curl([post, post, post, [`${site()}/healthz`]]);
    for (const refused of answers.slice(0, 3)) {
      expect(refused).toMatchObject({ status: 413, code: "body_too_large" });
      expect(refused.ms).toBeLessThan(BOUND_MS);
    }
    expect(answers.slice(1).map((answer) => answer.connects)).toEqual([0, 0, 0]);
    expect(answers[3].status).toBe(200);
  });
});

/** A multipart body that names a file field and then streams `size` bytes of it, never declaring a length. */
function streamedUpload(size: number): { body: ReadableStream<Uint8Array>; type: string } {
  const boundary = "gatepost-oversize";
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\nAda\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="cv"; filename="cv.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.7\n`,
  );
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    start: (controller) => controller.enqueue(head),
    pull(controller) {
      if (sent >= size) {
        controller.enqueue(Buffer.from(`\r\n--${boundary}--\r\n`));
        return controller.close();
      }
      sent += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
  return { body, type: `multipart/form-data; boundary=${boundary}` };
}

describe("an over-size post under wrangler dev, from fetch", () => {
  const site = () => inject("baseUrl");

  it("a declared 12 MB form data: 413 upload_too_large, then the next request is served", async () => {
    const form = new FormData();
    form.set("name", "Ada");
    form.set("cv", new Blob([Buffer.alloc(OVER_UPLOAD, 0x61)], { type: "application/pdf" }), "cv.pdf");
    const started = Date.now();
    const refused = await fetch(`${site()}/f/apply`, { method: "POST", body: form, signal: AbortSignal.timeout(BOUND_MS) });
    await refused.text();
    expect([refused.status, refused.headers.get("gatepost-error-code")]).toEqual([413, "upload_too_large"]);
    expect(Date.now() - started).toBeLessThan(BOUND_MS);
    expect((await fetch(`${site()}/healthz`, { signal: AbortSignal.timeout(BOUND_MS) })).status).toBe(200);
  });

  it("a streamed 12 MB upload: 413 file_too_large, twice, then the next request is served", async () => {
    for (let i = 0; i < 2; i++) {
      const { body, type } = streamedUpload(OVER_UPLOAD);
      const refused = await fetch(`${site()}/f/apply`, {
        method: "POST",
        body,
        headers: { "content-type": type },
        duplex: "half",
        signal: AbortSignal.timeout(BOUND_MS),
      } as RequestInit);
      await refused.text();
      expect([refused.status, refused.headers.get("gatepost-error-code")]).toEqual([413, "file_too_large"]);
    }
    expect((await fetch(`${site()}/healthz`, { signal: AbortSignal.timeout(BOUND_MS) })).status).toBe(200);
  });
});

describe("an over-size post under wrangler dev, from node:http on one keep-alive socket", () => {
  const body = Buffer.concat([Buffer.from("name=Ada&message="), Buffer.alloc(OVER_BODY, 0x61)]);
  const form = { "content-type": "application/x-www-form-urlencoded" };

  /**
   * One request on `agent`; with `Expect: 100-continue` the body goes on 100 Continue or, as curl does,
   * after a second without one (workerd sends none). Resolves to the status, code and socket reuse.
   */
  function request(agent: http.Agent, path: string, headers: http.OutgoingHttpHeaders, payload?: Buffer) {
    return new Promise<{ status: number; code: unknown; reused: boolean }>((resolve, reject) => {
      const req = http.request(new URL(path, inject("baseUrl")), { method: payload ? "POST" : "GET", agent, headers }, (res) => {
        res.resume();
        res.on("end", () => resolve({ status: res.statusCode!, code: res.headers["gatepost-error-code"], reused: req.reusedSocket }));
      });
      req.on("error", reject);
      req.setTimeout(BOUND_MS, () => req.destroy(new Error(`no answer to ${path} within ${BOUND_MS} ms`)));
      if (headers.expect) {
        const fallback = setTimeout(() => req.end(payload), 1_000);
        req.on("continue", () => (clearTimeout(fallback), req.end(payload)));
        req.on("response", () => clearTimeout(fallback));
      } else req.end(payload);
    });
  }

  it("declared, declared with Expect, chunked: 413 body_too_large each, and the socket serves the next", async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const cases: http.OutgoingHttpHeaders[] = [
        { ...form, "content-length": body.byteLength },
        { ...form, "content-length": body.byteLength, expect: "100-continue" },
        { ...form, "transfer-encoding": "chunked" },
      ];
      const answers = [];
      for (const headers of cases) {
        answers.push(await request(agent, "/f/contact", headers, body));
        answers.push(await request(agent, "/healthz", {}));
      }
      expect(answers).toEqual([
        { status: 413, code: "body_too_large", reused: false },
        { status: 200, code: undefined, reused: true },
        { status: 413, code: "body_too_large", reused: true },
        { status: 200, code: undefined, reused: true },
        { status: 413, code: "body_too_large", reused: true },
        { status: 200, code: undefined, reused: true },
      ]);
    } finally {
      agent.destroy();
    }
  });
});
