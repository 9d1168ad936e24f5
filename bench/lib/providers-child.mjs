// Child process of bench/lib/providers.mjs: the stand-in and the sink, until it is told to stop.
import { startTurnstileStandin } from "../../dev/turnstile-standin.mjs";
import { startWebhookSink } from "../../dev/local-sink.mjs";

const standin = await startTurnstileStandin();
const sink = await startWebhookSink({ secret: process.env.BENCH_SINK_SECRET });
console.log(
  JSON.stringify({
    standinOrigin: standin.origin,
    verifyUrl: standin.verifyUrl,
    scriptUrl: standin.scriptUrl,
    sinkUrl: sink.url,
    sinkControlOrigin: sink.controlOrigin,
  }),
);
for (const signal of ["SIGTERM", "SIGINT"]) {
  process.on(signal, async () => {
    await Promise.allSettled([standin.close(), sink.close()]);
    process.exit(0);
  });
}
