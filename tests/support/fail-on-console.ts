import { afterEach, beforeEach, vi } from "vitest";

// A console.error nobody expected fails the test (Epic Stack habit), in the unit and workers layers.
// Calls are collected and the test fails after it ran, not inside the call: in the workers layer the
// call is often deep in the app (a waitUntil, Remix's error handling), where a throw would change
// the path under test instead of reporting it.
//
// A test that expects an error log says so: `expectConsoleErrors(/pattern/)` lets matching calls
// through and returns them for the test's own assertions, or `vi.spyOn(console, "error")
// .mockImplementation(…)` takes console.error over entirely.

let unexpected: string[] = [];
let allowed: RegExp[] = [];
let expected: string[] = [];

beforeEach(() => {
  unexpected = [];
  allowed = [];
  expected = [];
  vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => {
    const line = args.map((arg) => (arg instanceof Error ? (arg.stack ?? String(arg)) : String(arg))).join(" ");
    if (allowed.some((pattern) => pattern.test(line))) expected.push(line);
    else unexpected.push(line);
  });
});

afterEach(() => {
  vi.restoreAllMocks();
  const calls = unexpected;
  unexpected = [];
  if (calls.length > 0) throw new Error(`Unexpected console.error (${calls.length}):\n${calls.join("\n---\n")}`);
});

/** Lets this test's console.error calls matching `pattern` through; returns a reader of those calls. */
export function expectConsoleErrors(pattern: RegExp): () => string[] {
  allowed.push(pattern);
  return () => expected.filter((line) => pattern.test(line));
}
