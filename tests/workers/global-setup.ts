import type { TestProject } from "vitest/node";
// @ts-expect-error - plain ESM helper shared with npm run start:offline
import { startTurnstileStandin } from "../../dev/turnstile-standin.mjs";
// @ts-expect-error - plain ESM helper shared with npm start and the benchmark
import { startWebhookSink } from "../../dev/local-sink.mjs";
// @ts-expect-error - plain ESM stand-in shared with the bench
import { startAkismetStandin } from "../../dev/akismet-standin.mjs";
import { hideWorkerdInfo } from "../support/workerd-log-level";

declare module "vitest" {
  interface ProvidedContext {
    standinOrigin: string;
    sinkUrl: string;
    sinkControl: string;
    sinkSecret: string;
    akismetOrigin: string;
  }
}

// Fixed for the test run; the sink checks signatures with it. (The Standard Webhooks spec's example key.)
const SINK_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

// The stand-in provider and the webhook sink run in Node beside workerd; tests reach both over loopback.
export default async function setup(project: TestProject) {
  const showWorkerdInfo = hideWorkerdInfo();
  const standin = await startTurnstileStandin();
  const sink = await startWebhookSink({ secret: SINK_SECRET });
  const akismet = await startAkismetStandin();
  project.provide("akismetOrigin", akismet.origin);
  project.provide("standinOrigin", standin.origin);
  project.provide("sinkUrl", sink.url);
  project.provide("sinkControl", sink.controlOrigin);
  project.provide("sinkSecret", SINK_SECRET);
  return async () => {
    await sink.close();
    await standin.close();
    await akismet.close();
    showWorkerdInfo();
  };
}
