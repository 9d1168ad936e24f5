import lighthouse from "lighthouse";
import * as chromeLauncher from "chrome-launcher";
import { writeFileSync } from "node:fs";
const chrome = await chromeLauncher.launch({ chromePath: "/usr/bin/chromium", chromeFlags: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-quic"] });
try {
  let i = 0;
  for (const url of process.argv.slice(2)) {
    const r = await lighthouse(url, { port: chrome.port, output: "json", logLevel: "error" });
    const lhr = r.lhr;
    writeFileSync(`/tmp/lhr-${i++}.json`, JSON.stringify(lhr));
    console.log(url, Object.values(lhr.categories).map((c) => `${c.id}=${Math.round(c.score * 100)}`).join(" "), "benchmarkIndex", lhr.environment.benchmarkIndex);
    for (const id of ["first-contentful-paint","largest-contentful-paint","total-blocking-time","speed-index","cumulative-layout-shift","server-response-time"]) console.log("  ", id, lhr.audits[id].score, lhr.audits[id].displayValue);
    const lt = lhr.audits["long-tasks"]?.details?.items ?? [];
    console.log("  long tasks", JSON.stringify(lt.map(t=>[t.url?.slice(-40), Math.round(t.duration), Math.round(t.startTime)])));
    console.log("  lcp el", JSON.stringify(lhr.audits["largest-contentful-paint-element"]?.details?.items?.[0]?.items?.[0]?.node?.snippet));
    const nr = lhr.audits["network-requests"].details.items.map(x=>[x.url.slice(-40), Math.round(x.networkRequestTime), Math.round(x.networkEndTime), x.priority, x.transferSize]);
    console.log("  net", JSON.stringify(nr));
  }
} finally { chrome.kill(); }
