import { describe, expect, it } from "vitest";
import { guardSessionStorage, STORAGE_GUARD_SCRIPT } from "~/lib/http/storage-guard.server";

// A document denied storage (a third-party frame where the browser blocks it) throws on any read of
// sessionStorage; the guard gives it one in memory, as the inline script in <head> does (ADR 108).

function deniedWindow() {
  const win = {} as { sessionStorage: Storage };
  Object.defineProperty(win, "sessionStorage", {
    configurable: true,
    get() {
      throw new DOMException(
        "Failed to read the 'sessionStorage' property from 'Window': Access is denied for this document.",
        "SecurityError",
      );
    },
  });
  return win;
}

describe("guardSessionStorage", () => {
  it("gives a document denied storage a working sessionStorage of its own memory", () => {
    const win = deniedWindow();
    expect(() => win.sessionStorage.getItem("k")).toThrow("Access is denied");
    guardSessionStorage(win);
    const storage = win.sessionStorage;
    expect(storage.getItem("remix-manifest-version")).toBeNull();
    storage.setItem("remix-manifest-version", "v1");
    expect([storage.getItem("remix-manifest-version"), storage.length, storage.key(0)]).toEqual(["v1", 1, "remix-manifest-version"]);
    storage.removeItem("remix-manifest-version");
    expect([storage.getItem("remix-manifest-version"), storage.length]).toEqual([null, 0]);
  });

  it("runs alone as the page's inline script (its text needs nothing around it)", () => {
    const win = deniedWindow();
    new Function("window", STORAGE_GUARD_SCRIPT)(win);
    win.sessionStorage.setItem("a", "1");
    expect(win.sessionStorage.getItem("a")).toBe("1");
  });

  it("leaves storage the browser allows alone", () => {
    const own = { length: 0, getItem: () => "kept" } as unknown as Storage;
    const win = { sessionStorage: own };
    guardSessionStorage(win);
    expect(win.sessionStorage).toBe(own);
  });
});
