import { describe, expect, it } from "vitest";
import { checkForms } from "~/lib/forms/check";
import { applyForm } from "~/forms/apply";
import { DEFAULT_MAX_FILE_BYTES, DEFAULT_MAX_UPLOAD_BYTES, defineForm, type FieldDef, type UploadType } from "~/forms/schema";
import { validateFields } from "~/lib/submit/validation";
import {
  ALLOWED_FILE_TYPES,
  acceptAttribute,
  fileLimitsOf,
  formatBytes,
  servedType,
  sniffFileType,
  uploadLimitOf,
} from "~/lib/uploads/file-types";

// ADR 050: a file's type is what its leading bytes show, never its name or the browser's
// Content-Type; only five types are known, and nothing a browser could run as a page is among them,
// whatever a form definition lists.

/** What a definition from D1 or JSON could hold, whatever the type says. */
const anyTypes = (...types: string[]) => types as UploadType[];

const bytes = (...parts: Array<string | number[]>) =>
  new Uint8Array(parts.flatMap((part) => (typeof part === "string" ? [...new TextEncoder().encode(part)] : part)));

const PNG = bytes([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d], "IHDR");
const JPEG = bytes([0xff, 0xd8, 0xff, 0xe0, 0, 0x10], "JFIF");
const GIF = bytes("GIF89a", [1, 0, 1, 0]);
const WEBP = bytes("RIFF", [0x24, 0, 0, 0], "WEBPVP8 ");
const PDF = bytes("%PDF-1.7\n%\u00e2\u00e3\n1 0 obj");

describe("sniffFileType", () => {
  it.each([
    ["a PDF", PDF, "application/pdf"],
    ["a PNG", PNG, "image/png"],
    ["a JPEG", JPEG, "image/jpeg"],
    ["a GIF", GIF, "image/gif"],
    ["a GIF87a", bytes("GIF87a", [1, 0]), "image/gif"],
    ["a WebP", WEBP, "image/webp"],
  ])("knows %s by its first bytes", (_label, head, type) => {
    expect(sniffFileType(head)).toBe(type);
  });

  it.each([
    ["HTML", bytes("<!doctype html><script>alert(1)</script>")],
    ["HTML with a BOM and spaces", bytes([0xef, 0xbb, 0xbf], "  <html><body>")],
    ["SVG", bytes('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>')],
    ["XML", bytes('<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "b">]><x/>')],
    ["a script", bytes("#!/bin/sh\nrm -rf /\n")],
    ["JavaScript", bytes("alert(document.cookie)")],
    ["a ZIP archive", bytes("PK", [3, 4, 20, 0])],
    ["a gzip stream", bytes([0x1f, 0x8b, 8, 0])],
    ["a Windows executable", bytes("MZ", [0x90, 0, 3, 0])],
    ["an ELF executable", bytes([0x7f], "ELF", [2, 1, 1])],
    ["a RIFF that is not WebP (WAV)", bytes("RIFF", [0x24, 0, 0, 0], "WAVEfmt ")],
    ["a PDF signature not at the start", bytes(" %PDF-1.7")],
    ["a truncated PNG signature", bytes([0x89, 0x50, 0x4e])],
    ["nothing", new Uint8Array()],
  ])("does not take %s for any type", (_label, head) => {
    expect(sniffFileType(head)).toBeNull();
  });

  it("labels a download with a known type or application/octet-stream, never a stored type it does not know", () => {
    expect(servedType("application/pdf")).toBe("application/pdf");
    expect(servedType("text/html")).toBe("application/octet-stream");
    expect(servedType("image/svg+xml")).toBe("application/octet-stream");
  });
});

describe("a file field's limits", () => {
  const field = (extra: Partial<FieldDef>): FieldDef => ({ name: "f", type: "file", label: "F", hint: "h", ...extra });

  it("defaults to one file of 10 MB of any known type, and 25 MB a submission", () => {
    expect(fileLimitsOf(field({}))).toEqual({ types: ALLOWED_FILE_TYPES, maxFiles: 1, maxBytes: DEFAULT_MAX_FILE_BYTES });
    expect(DEFAULT_MAX_FILE_BYTES).toBe(10 * 1024 * 1024);
    expect(DEFAULT_MAX_UPLOAD_BYTES).toBe(25 * 1024 * 1024);
    expect(uploadLimitOf({ fields: [field({})] })).toBe(DEFAULT_MAX_UPLOAD_BYTES);
    expect(uploadLimitOf({ fields: [] })).toBe(0);
  });

  it("never takes a type off the allow-list, whatever `accept` lists (a console-made form skips checkForms)", () => {
    const risky = field({ accept: anyTypes("text/html", "image/svg+xml", "application/zip", "application/pdf") });
    expect(fileLimitsOf(risky).types).toEqual(["application/pdf"]);
    const html = new TextEncoder().encode("<html><script>alert(1)</script></html>");
    const form = defineForm({ ...applyForm, fields: [risky] });
    const result = validateFields(form, {}, [{ field: "f", name: "page.html", bytes: html }]);
    expect(result.ok).toBe(false);
  });

  it("shows the limits a person reads and the accept attribute a browser filters by", () => {
    expect(formatBytes(10 * 1024 * 1024)).toBe("10 MB");
    expect(formatBytes(1536 * 1024)).toBe("1.5 MB");
    expect(formatBytes(300 * 1024)).toBe("300 KB");
    expect(acceptAttribute(["application/pdf"])).toBe("application/pdf,.pdf");
    expect(acceptAttribute(["image/jpeg", "image/png"])).toBe("image/png,.png,image/jpeg,.jpg,.jpeg");
  });
});

describe("checkForms on file fields", () => {
  const form = (fields: FieldDef[], extra: object = {}) => defineForm({ ...applyForm, id: "f", steps: undefined, fields, ...extra });

  it("takes the shipped apply form: name, e-mail, role, a portfolio for designers and one PDF", () => {
    expect(() => checkForms([applyForm])).not.toThrow();
    expect(applyForm.fields.map((f) => [f.name, f.type])).toEqual([
      ["name", "text"],
      ["email", "email"],
      ["role", "select"],
      ["portfolio", "url"],
      ["cv", "file"],
    ]);
    expect(fileLimitsOf(applyForm.fields[4]).types).toEqual(["application/pdf"]);
  });

  it("refuses a type it cannot recognise, limits beyond its ceilings, a file larger than the total, and file settings elsewhere", () => {
    const file = (extra: Partial<FieldDef>): FieldDef => ({ name: "f", type: "file", label: "F", hint: "h", ...extra });
    expect(() => checkForms([form([file({ accept: anyTypes("image/svg+xml") })])])).toThrow(/accept\.0: lists "image\/svg\+xml"/);
    expect(() => checkForms([form([file({ accept: anyTypes("text/html") })])])).toThrow(/never taken/);
    expect(() => checkForms([form([file({ maxFiles: 0 })])])).toThrow(/maxFiles: must be a whole number from 1 to 10/);
    expect(() => checkForms([form([file({ maxBytes: 64 * 1024 * 1024 })])])).toThrow(/maxBytes: must be a whole number of bytes/);
    expect(() => checkForms([form([file({ maxBytes: 5_000_000 })], { maxUploadBytes: 1_000_000 })])).toThrow(
      /maxBytes is above the form's maxUploadBytes/,
    );
    expect(() => checkForms([form([{ name: "t", type: "text", label: "T", hint: "h", accept: ["application/pdf"] }])])).toThrow(
      /accept, maxFiles and maxBytes are for file fields/,
    );
  });
});
