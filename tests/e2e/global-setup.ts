import { existsSync, mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import type { TestProject } from "vitest/node";
// @ts-expect-error - plain ESM helpers shared with npm start
import { applyLocalMigrations, startWorkerDev } from "../../scripts/worker-dev.mjs";
// @ts-expect-error - plain ESM helper
import { freePort } from "../../scripts/process-group.mjs";
// @ts-expect-error - plain ESM helper
import { startTurnstileStandin } from "../../dev/turnstile-standin.mjs";
import { findChromium } from "./chromium";
import { extraBindings } from "./bindings";

declare module "vitest" {
  interface ProvidedContext {
    baseUrl: string;
    standinOrigin: string;
    persistTo: string;
    chromiumPath: string;
    /** From tests/e2e/bindings.ts: the static sites that post to Gatepost from other origins. */
    allowedSite: string;
    refusedSite: string;
    /** The same sites on another registrable domain (OTHER_SITE_HOST): cross-site, not only cross-origin. */
    allowedCrossSite: string;
    refusedCrossSite: string;
  }
}

export const SITE_KEY = "1x00000000000000000000AA";
export const SECRET = "1x0000000000000000000000000000000AA";

export default async function setup(project: TestProject) {
  // Fail loudly, never skip: a browser layer that silently does nothing proves nothing.
  const chromiumPath = findChromium();
  const root = path.resolve(__dirname, "../..");
  if (!existsSync(path.join(root, "build/server/index.js"))) {
    throw new Error("build/ is missing: run `npm run build` before the e2e layer (npm test does this).");
  }
  const standin = await startTurnstileStandin();
  const persistTo = path.join(root, ".wrangler", `e2e-${process.pid}`);
  rmSync(persistTo, { recursive: true, force: true });
  mkdirSync(persistTo, { recursive: true });
  applyLocalMigrations({ persistTo });

  const extra = await extraBindings();
  const server = await startWorkerDev({
    port: await freePort(),
    persistTo,
    log: "pipe",
    bindings: {
      TURNSTILE_SITE_KEY: SITE_KEY,
      TURNSTILE_SECRET_KEY: SECRET,
      TURNSTILE_VERIFY_URL: standin.verifyUrl,
      TURNSTILE_SCRIPT_URL: standin.scriptUrl,
      ...extra.bindings,
    },
  });
  project.provide("baseUrl", server.url);
  project.provide("standinOrigin", standin.origin);
  project.provide("persistTo", persistTo);
  project.provide("chromiumPath", chromiumPath);
  for (const [key, value] of Object.entries(extra.provided)) project.provide(key as "allowedSite", value);

  return async () => {
    await server.stop();
    await standin.close();
    await extra.stop();
    rmSync(persistTo, { recursive: true, force: true });
  };
}
