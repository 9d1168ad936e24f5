import type { TestProject } from "vitest/node";
// @ts-ignore - plain ESM helper shared with npm run start:offline
import { startTurnstileStandin } from "../support/turnstile-standin.mjs";

declare module "vitest" {
  interface ProvidedContext {
    standinOrigin: string;
  }
}

// The stand-in provider runs in Node beside workerd; tests reach it over loopback HTTP.
export default async function setup(project: TestProject) {
  const standin = await startTurnstileStandin();
  project.provide("standinOrigin", standin.origin);
  return () => standin.close();
}
