import { afterEach, beforeEach, vi } from "vitest";

// A console.error nobody expected fails the test (Epic Stack habit). A test that expects one says so
// with `vi.mocked(console.error).mockImplementation(() => {})` and asserts on it.
beforeEach(() => {
  vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => {
    throw new Error(`Unexpected console.error: ${args.map(String).join(" ")}`);
  });
});

afterEach(() => {
  vi.restoreAllMocks();
});
