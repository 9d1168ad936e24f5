// Runs the scheduled companion Worker (workers/outbox-drain) locally with `wrangler dev --test-scheduled`
// on the same persisted D1 state as the site, and fires its cron on a timer, so due retries happen
// locally without any new request. Own process group, stopped as a whole.
//
// E-mail: wrangler simulates the Worker's send_email binding, writing each message to a .eml file and
// logging its path. Each such message is handed to `onEmail(raw)` (npm start shows it in the local sink),
// so the e-mail path run locally is the one deployed: mimetext → EmailMessage → the binding.
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { appendFileSync } from "node:fs";
import { freePort, spawnGroup } from "./process-group.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const WRANGLER = fileURLToPath(new URL("../node_modules/wrangler/bin/wrangler.js", import.meta.url));

/**
 * Starts the drain Worker and triggers its cron every `intervalMs` (0: never; call `tick()` yourself).
 * `onReport(results)` receives each run's job results; `onEmail(raw)` each e-mail the simulated
 * send_email binding took (RFC 5322 text). `onSpawn(stop)` gets the stop function as soon
 * as the process exists, so a caller interrupted during start-up can still stop it. `logFile` gets a
 * copy of wrangler's output. Resolves to { tick, stop, output }.
 */
export async function startOutboxDrainDev({
  persistTo = ".wrangler/state",
  bindings = {},
  intervalMs = 15_000,
  onReport,
  onEmail,
  onSpawn,
  logFile,
  timeoutMs = 120_000,
} = {}) {
  const port = await freePort();
  const args = [
    WRANGLER,
    "dev",
    "-c",
    "workers/outbox-drain/wrangler.toml",
    "--test-scheduled",
    "--ip",
    "127.0.0.1",
    "--port",
    String(port),
    "--inspector-port",
    "0",
    "--persist-to",
    persistTo,
    "--show-interactive-dev-session=false",
  ];
  for (const [key, value] of Object.entries(bindings)) {
    if (value !== undefined && value !== "") args.push("--var", `${key}:${value}`);
  }
  // A report line can arrive split across chunks, so only whole lines are parsed.
  let partial = "";
  let emailNext = false;
  const emails = [];
  const group = spawnGroup(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, CI: "true", NO_COLOR: "1" },
    onData: (chunk) => {
      if (logFile) appendFileSync(logFile, chunk);
      const lines = (partial + chunk).split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines) {
        if (line.startsWith('{"maintenance"')) onReport?.(JSON.parse(line).maintenance);
        const eml = emailNext ? /(\S+\.eml)\s*$/.exec(line) : null;
        if (eml && onEmail)
          emails.push(readFile(eml[1], "utf8").then(onEmail, (e) => console.error(`could not read ${eml[1]}: ${e.message}`)));
        emailNext = line.includes("send_email binding called with the following message:");
      }
    },
  });
  const { output, exited } = group;

  const url = `http://127.0.0.1:${port}/__scheduled?cron=${encodeURIComponent("* * * * *")}`;
  const tick = async () => {
    const res = await fetch(url, { signal: AbortSignal.timeout(180_000) });
    if (!res.ok) throw new Error(`drain tick answered ${res.status}`);
    // The log lines of this run's e-mails may trail the answer by a moment.
    await new Promise((r) => setTimeout(r, 300));
    await Promise.all(emails.splice(0));
  };
  let timer;
  const stop = () => {
    clearInterval(timer);
    return group.stop();
  };
  onSpawn?.(stop);

  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (exited()) throw new Error(`the drain Worker exited early:\n${output()}`);
    if (/Ready on http/.test(output())) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the drain Worker did not start within ${timeoutMs} ms:\n${output()}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  let busy = false; // one run at a time: a tick that is still draining is not joined by another
  if (intervalMs > 0) {
    timer = setInterval(() => {
      if (busy) return;
      busy = true;
      tick()
        .catch((e) => console.error(`outbox drain tick failed: ${e.message}`))
        .finally(() => (busy = false));
    }, intervalMs);
  }
  return { tick, stop, pid: group.pid, output };
}
