// The spam filter's catch and false-alarm rates (issue 54): the labelled set of bench/lib/spam-set.mjs
// replayed through the public API of a fresh Gatepost server; the first 100 spam and 100 ham are marked
// through the admin API (POST /admin/api/submissions/:id/mark), then every held-out message is posted
// and its state read back (GET /admin/api/submissions/:id). Caught: held-out spam quarantined;
// false alarms: held-out ham quarantined.
import { standinToken } from "../lib/submit.mjs";
import { atLeast, atMost, byRuntime } from "../lib/targets.mjs";
import { makeSpamSet, SPAM_SET_SOURCE } from "../lib/spam-set.mjs";

export const name = "spam";
export const title = "The spam filter after 200 marks";
export const order = 50;
export const perRuntime = true;

const MARKS_PER_KIND = 100;
const VARIANT = "noDestination";

export async function run({ servers, settings, log }) {
  const server = await servers.get("gatepost", VARIANT, "spam");
  const token = settings[VARIANT].ADMIN_API_TOKEN;
  const admin = (method, path, body) =>
    fetch(`${server.url}/admin/api/submissions/${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
  const post = async (fields) => {
    const res = await fetch(`${server.url}/api/forms/contact/submissions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...fields, "cf-turnstile-response": standinToken({ action: "contact" }) }),
    });
    if (res.status !== 201) throw new Error(`POST contact: ${res.status} ${await res.text()}`);
    return (await res.json()).id;
  };
  const set = makeSpamSet();
  const marked = { spam: 0, ham: 0 };
  const heldOut = [];
  for (const message of set) {
    if (marked[message.label] < MARKS_PER_KIND) {
      const id = await post(message.fields);
      const res = await admin("POST", `${id}/mark`, { as: message.label });
      if (res.status !== 200) throw new Error(`mark ${id}: ${res.status} ${await res.text()}`);
      marked[message.label] += 1;
    } else heldOut.push(message);
  }
  log(`spam: ${marked.spam + marked.ham} marked, replaying ${heldOut.length} held out`);
  const counts = { spam: { n: 0, quarantined: 0 }, ham: { n: 0, quarantined: 0 } };
  const started = Date.now();
  for (const message of heldOut) {
    const id = await post(message.fields);
    const detail = await (await admin("GET", id)).json();
    counts[message.label].n += 1;
    if (detail.state === "quarantined") counts[message.label].quarantined += 1;
  }
  return {
    source: SPAM_SET_SOURCE,
    size: set.length,
    marks: marked,
    counts,
    caught: counts.spam.quarantined / counts.spam.n,
    falseAlarms: counts.ham.quarantined / counts.ham.n,
    replaySeconds: (Date.now() - started) / 1000,
  };
}

const pct = (x) => Math.round(x * 1000) / 10;

export function targets(data) {
  return [
    atLeast(
      "Held-out spam caught after 200 marks, %",
      90,
      byRuntime(data, (d) => pct(d.caught)),
    ),
    atMost(
      "Held-out ham quarantined after 200 marks, %",
      1,
      byRuntime(data, (d) => pct(d.falseAlarms)),
      " %",
    ),
  ];
}

export function render(data) {
  const lines = [
    "| Runtime | Set | Marked (spam / ham) | Held out (spam / ham) | Spam caught | Ham quarantined |",
    "|---|---|---|---|---|---|",
  ];
  for (const [runtime, d] of Object.entries(data)) {
    if (d.failed) {
      lines.push(`| ${runtime} | failed: ${d.failed} | | | | |`);
      continue;
    }
    lines.push(
      `| ${runtime} | ${d.size} | ${d.marks.spam} / ${d.marks.ham} | ${d.counts.spam.n} / ${d.counts.ham.n} | ${d.counts.spam.quarantined} (${pct(d.caught)} %) | ${d.counts.ham.quarantined} (${pct(d.falseAlarms)} %) |`,
    );
  }
  const source = Object.values(data).find((d) => d.source)?.source;
  if (source) lines.push("", `The set: ${source}.`);
  return lines;
}

export function summarize(data) {
  return byRuntime(data, (d) => ({ caught: d.caught, falseAlarms: d.falseAlarms }));
}
