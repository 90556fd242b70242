// Runs Lighthouse (its default mobile profile) on each URL given, RUNS times (default 3),
// in /usr/bin/chromium through puppeteer-core; prints every run and the median of each
// figure, and saves the last run's report per page in artifacts/lighthouse/ (HTML to read,
// JSON for the LCP element and the long tasks). Each run's line carries the machine's load
// average before it. Called by scripts/lighthouse.
import fs from "node:fs";
import os from "node:os";
import lighthouse from "lighthouse";
import puppeteer from "puppeteer-core";

const runs = Number(process.env.RUNS || 3);
const urls = process.argv.slice(2);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"],
});
const port = Number(new URL(browser.wsEndpoint()).port);
const rows = [];
for (const url of urls) {
  const figures = [];
  for (let i = 0; i < runs; i++) {
    const load = os.loadavg().map((x) => x.toFixed(2)).join(" ");
    const result = await lighthouse(url, { port, output: ["html", "json"], logLevel: "error" });
    const lhr = result.lhr;
    const score = (c) => Math.round(lhr.categories[c].score * 100);
    const audit = (a) => lhr.audits[a].numericValue;
    const f = {
      performance: score("performance"),
      accessibility: score("accessibility"),
      bestPractices: score("best-practices"),
      seo: score("seo"),
      fcp: Math.round(audit("first-contentful-paint")),
      lcp: Math.round(audit("largest-contentful-paint")),
      tbt: Math.round(audit("total-blocking-time")),
      cls: Number(audit("cumulative-layout-shift").toFixed(3)),
    };
    figures.push(f);
    // The long tasks behind TBT (simulated ms, the script that ran them), to tell one
    // start-up task from two.
    const tasks = (lhr.audits["long-tasks"]?.details?.items || [])
      .map((t) => `${String(t.url).split("/").pop() || "?"}@${Math.round(t.startTime)}:${Math.round(t.duration)}`)
      .join(" ");
    console.log(`${url} run ${i + 1} (load average ${load}): ${JSON.stringify(f)} long tasks: ${tasks}`);
    const name = new URL(url).pathname.split("/").filter(Boolean).join("-");
    fs.writeFileSync(`artifacts/lighthouse/${name}.html`, result.report[0]);
    fs.writeFileSync(`artifacts/lighthouse/${name}.json`, result.report[1]);
  }
  const m = {};
  for (const k of Object.keys(figures[0])) m[k] = median(figures.map((f) => f[k]));
  rows.push({ url, ...m });
}
await browser.close();
console.log("\n| page | performance | accessibility | best practices | SEO | FCP ms | LCP ms | TBT ms | CLS |");
console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
for (const r of rows) {
  console.log(`| ${new URL(r.url).pathname} | ${r.performance} | ${r.accessibility} | ${r.bestPractices} | ${r.seo} | ${r.fcp} | ${r.lcp} | ${r.tbt} | ${r.cls} |`);
}
