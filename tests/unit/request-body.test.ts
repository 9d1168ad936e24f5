import { describe, expect, it } from "vitest";
import { MAX_BODY_BYTES, MAX_FIELDS } from "~/lib/http/body-rules.server";
import { readBody } from "~/lib/http/request-body.server";

// Every body is parsed in work linear in its size and capped by a count of fields, text that cannot
// be stored well-formed is refused with a code, and files are refused.
// No test here times anything: each asserts a limit or an outcome.

function post(body: BodyInit, type: string) {
  return new Request("http://localhost/api/forms/contact/submissions", { method: "POST", body, headers: { "content-type": type } });
}
const urlencoded = (body: string) => readBody(post(body, "application/x-www-form-urlencoded"));
const json = (body: string) => readBody(post(body, "application/json"));

function multipart(parts: string[], boundary = "----unit") {
  return parts.map((p) => `--${boundary}\r\n${p}\r\n`).join("") + `--${boundary}--\r\n`;
}

describe("count limits", () => {
  it("refuses a 64 KiB body of one repeated key by its count, whatever the body type", async () => {
    const pair = "a=1&";
    const repeated = pair.repeat(Math.floor(MAX_BODY_BYTES / pair.length));
    expect(repeated.length).toBeLessThanOrEqual(MAX_BODY_BYTES);
    expect(await urlencoded(repeated)).toEqual({ ok: false, code: "too_many_fields" });
    const parts = Array.from({ length: MAX_FIELDS + 1 }, () => 'Content-Disposition: form-data; name="a"\r\n\r\n1');
    expect(await readBody(post(multipart(parts), "multipart/form-data; boundary=----unit"))).toEqual({
      ok: false,
      code: "too_many_fields",
    });
    const keys = Object.fromEntries(Array.from({ length: MAX_FIELDS + 1 }, (_, i) => [`k${i}`, i]));
    expect(await json(JSON.stringify(keys))).toEqual({ ok: false, code: "too_many_fields" });
  });

  it("takes up to the limit, repeats becoming one list in order", async () => {
    expect(MAX_FIELDS).toBe(100);
    const result = await urlencoded(Array.from({ length: MAX_FIELDS }, (_, i) => `a=${i}`).join("&"));
    expect(result).toEqual({ ok: true, fields: { a: Array.from({ length: MAX_FIELDS }, (_, i) => String(i)) }, files: [] });
    // Empty pieces are not fields, so they count for nothing (and cost one step each).
    expect(await urlencoded("&".repeat(10_000) + "a=1")).toEqual({ ok: true, fields: { a: "1" }, files: [] });
  });

  it("never walks a nested JSON value: depth costs nothing, and validation refuses it later", async () => {
    const deep = `{"message":${"[".repeat(20_000)}${"]".repeat(20_000)}}`;
    const result = await json(deep);
    expect(result.ok).toBe(true);
  });
});

describe("well-formed text", () => {
  it.each([
    ["%FF in a urlencoded value", () => urlencoded("name=%FF")],
    ["an encoded surrogate half", () => urlencoded("name=%ED%A0%80")],
    ["a truncated sequence", () => urlencoded("name=%E0%A4%A")],
    ["invalid raw UTF-8", () => readBody(post(new Uint8Array([0x6e, 0x3d, 0xc3, 0x28]), "application/x-www-form-urlencoded"))],
    ["a lone surrogate in JSON", () => json('{"name":"\\ud800 x"}')],
    ["a lone surrogate in a JSON key", () => json('{"\\udc00":"x"}')],
    ["NUL", () => urlencoded("message=a%00b")],
    ["ESC in JSON", () => json('{"message":"a\\u001bb"}')],
    ["DEL", () => urlencoded("message=a%7Fb")],
    ["a C1 control", () => json('{"message":"a\\u0085b"}')],
    [
      "a control character in multipart",
      () =>
        readBody(post(multipart(['Content-Disposition: form-data; name="m"\r\n\r\na\u0007b']), "multipart/form-data; boundary=----unit")),
    ],
  ])("refuses %s with invalid_text", async (_label, read) => {
    expect(await read()).toEqual({ ok: false, code: "invalid_text" });
  });

  it("keeps tab and newline, turns CR and CRLF into newlines, and keeps a bare % and + as URLSearchParams does", async () => {
    expect(await urlencoded("m=a%09b%0Ac%0Dd%0D%0Ae&n=50%25+off&o=100%&p=%zz")).toEqual({
      ok: true,
      fields: { m: "a\tb\nc\nd\ne", n: "50% off", o: "100%", p: "%zz" },
      files: [],
    });
    expect(await json('{"m":"a\\r\\nb\\rc","emoji":"🙂","n":1,"b":true}')).toEqual({
      ok: true,
      fields: { m: "a\nb\nc", emoji: "🙂", n: 1, b: true },
      files: [],
    });
  });
});

describe("files", () => {
  it("refuses a multipart body with a file part with 415 file_not_accepted", async () => {
    const body = multipart([
      'Content-Disposition: form-data; name="name"\r\n\r\nAda',
      'Content-Disposition: form-data; name="cv"; filename="cv.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.7 \u00ff',
    ]);
    expect(await readBody(post(body, "multipart/form-data; boundary=----unit"))).toEqual({ ok: false, code: "file_not_accepted" });
  });

  it("takes a multipart body of text fields", async () => {
    const body = multipart([
      'Content-Disposition: form-data; name="name"\r\n\r\nAda',
      'Content-Disposition: form-data; name="name"\r\n\r\nB',
    ]);
    expect(await readBody(post(body, "multipart/form-data; boundary=----unit"))).toEqual({
      ok: true,
      fields: { name: ["Ada", "B"] },
      files: [],
    });
  });
});

describe("cheap refusals", () => {
  it("refuses an unsupported type and a declared oversize without reading the body", async () => {
    let pulled = false;
    // highWaterMark 0: the stream is pulled only when someone reads it.
    const stream = () => new ReadableStream({ pull: () => void (pulled = true) }, { highWaterMark: 0 });
    expect(
      await readBody(
        new Request("http://x/", {
          method: "POST",
          body: stream(),
          headers: { "content-type": "text/plain" },
          duplex: "half",
        } as RequestInit),
      ),
    ).toEqual({
      ok: false,
      code: "unsupported_media_type",
    });
    const big = new Request("http://x/", {
      method: "POST",
      body: stream(),
      headers: { "content-type": "application/json", "content-length": String(MAX_BODY_BYTES + 1) },
      duplex: "half",
    } as RequestInit);
    expect(await readBody(big)).toEqual({ ok: false, code: "body_too_large" });
    expect(pulled).toBe(false);
  });
});
