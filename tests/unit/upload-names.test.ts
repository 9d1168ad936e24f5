import { ContentDisposition } from "@remix-run/headers/content-disposition";
import { describe, expect, it } from "vitest";
import { asciiFileName, attachmentDisposition, cleanFileName } from "~/lib/uploads/file-names";

// ADR 051: a file's name is the sender's text. It is kept for people to read (never as a key), and
// it can never break out of the Content-Disposition header or pass for another kind of file.

describe("cleanFileName", () => {
  it.each([
    ["keeps an ordinary name", "CV 2026.pdf", "CV 2026.pdf"],
    ["keeps the case of its ending", "CV.PDF", "CV.PDF"],
    ["drops a Unix path", "../../etc/passwd", "passwd.pdf"],
    ["drops a Windows path", "C:\\Users\\ada\\cv.pdf", "cv.pdf"],
    ["removes CR, LF and NUL", "cv\r\nSet-Cookie: x=1\u0000.pdf", "cvSet-Cookie: x=1.pdf"],
    ["removes a right-to-left override that makes a name read backwards", "invoice\u202Efdp.exe.pdf", "invoicefdp.exe.pdf"],
    ["adds the ending of what the bytes are", "invoice.html", "invoice.html.pdf"],
    ["adds it to a name without one", "cv", "cv.pdf"],
    ["names a nameless file", "", "file.pdf"],
    ["drops leading dots", "...hidden.pdf", "hidden.pdf"],
    ["composes accents (NFC)", "Zoe\u0301.pdf", "Zoé.pdf"],
  ])("%s", (_label, raw, kept) => {
    expect(cleanFileName(raw, "application/pdf")).toBe(kept);
  });

  it("takes a .jpeg or .jpg for a JPEG, and cuts a long name but keeps its ending", () => {
    expect(cleanFileName("photo.jpeg", "image/jpeg")).toBe("photo.jpeg");
    expect(cleanFileName("photo.png", "image/jpeg")).toBe("photo.png.jpg");
    const long = cleanFileName(`${"é".repeat(500)}.pdf`, "application/pdf");
    expect([...long]).toHaveLength(200);
    expect(long.endsWith(".pdf")).toBe(true);
  });
});

describe("attachmentDisposition", () => {
  it.each(['Ada "Countess" Lovelace.pdf', "Zoë's CV (final) — 2026.pdf", "résumé.pdf", "a\\b;c=d.pdf", "履歴書.pdf", "cv%20encoded.pdf"])(
    "is one safe header value that a parser reads back as %j",
    (name) => {
      const value = attachmentDisposition(name);
      expect(value).toMatch(/^attachment; filename="[A-Za-z0-9 ._()-]+"; filename\*=UTF-8''[A-Za-z0-9!#$&+\-.^_`|~%]+$/);
      // Headers refuses CR, LF and NUL: setting it proves the value is a legal header value.
      expect(new Headers({ "content-disposition": value }).get("content-disposition")).toBe(value);
      expect(ContentDisposition.from(value).preferredFilename).toBe(name);
      expect(ContentDisposition.from(value).type).toBe("attachment");
    },
  );

  it("falls back to an ASCII name with accents dropped and anything unusual as _", () => {
    expect(asciiFileName("Zoë's CV.pdf")).toBe("Zoe_s CV.pdf");
    expect(asciiFileName('a"b.pdf')).toBe("a_b.pdf");
    expect(asciiFileName("履歴書.pdf")).toBe("_.pdf");
  });
});
