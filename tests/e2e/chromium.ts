import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { chromium, type Browser, type Page } from "playwright-core";
// @ts-expect-error - plain ESM helper shared with the Lighthouse runner
import { CHROMIUM_FLAGS } from "../../scripts/chromium-flags.mjs";
import { OTHER_SITE_HOST } from "./cross-origin-site";

// The host page of an embed is served from another site than Gatepost's (tests/e2e/embed.test.ts).
const ARGS = [...CHROMIUM_FLAGS, "--no-first-run", `--host-resolver-rules=MAP ${OTHER_SITE_HOST} 127.0.0.1`];

/** Where Debian's Chromium is; throws with the fix when it is missing (tests must not skip). */
export function findChromium(): string {
  const fromEnv = process.env.CHROME_PATH;
  if (fromEnv && existsSync(fromEnv)) return fromEnv;
  try {
    const found = execFileSync("sh", ["-c", "command -v chromium"], { encoding: "utf8" }).trim();
    if (found) return found;
  } catch {
    // not on PATH: the error below says how to install it
  }
  throw new Error(
    "Chromium is not installed, so the browser tests cannot run. Install it with `apt-get install -y chromium` (.ci/run does this), or set CHROME_PATH.",
  );
}

export function launchBrowser(executablePath: string): Promise<Browser> {
  return chromium.launch({ executablePath, args: ARGS, headless: true });
}

/** Collects console errors and page errors so a test can assert there were none it did not expect. */
export function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("console", (msg) => {
    if (msg.type() === "error") errors.push(msg.text());
  });
  page.on("pageerror", (err) => errors.push(String(err)));
  return errors;
}
