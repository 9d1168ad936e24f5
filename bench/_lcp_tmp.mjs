import { chromium } from "playwright-core";
const b = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
const p = await b.newPage({ viewport: { width: 412, height: 823 } });
await p.addInitScript(() => { window.__lcp = []; new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__lcp.push([Math.round(e.startTime), e.size, e.element?.outerHTML?.slice(0, 120)]); }).observe({ type: "largest-contentful-paint", buffered: true });
 window.__cls=[]; new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__cls.push([Math.round(e.startTime), e.value, e.sources?.map(s=>s.node?.outerHTML?.slice(0,100))]); }).observe({ type: "layout-shift", buffered: true }); });
for (const path of process.argv.slice(2)) {
  await p.goto("http://localhost:8804" + path); await p.waitForTimeout(2500);
  console.log(path, JSON.stringify(await p.evaluate(() => window.__lcp)), JSON.stringify(await p.evaluate(() => window.__cls)));
}
await b.close();
