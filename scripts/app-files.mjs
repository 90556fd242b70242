// Moves the app's two files from the built shells' <head> onto their `vestibule-app` meta
// (issue 27 item 2). Trunk writes a <link rel="modulepreload"> for the wasm-bindgen glue and
// a <link rel="preload" as="fetch"> for the .wasm, each with its SRI hash, so the browser
// fetches both while it is still reading the page. On the signup form that is a loss: the
// server has written the whole first screen into the page, and the 290 KiB WASM then
// competes with it for a phone's bandwidth (Lighthouse's LCP on slow 4G counted its
// download). Here each link becomes `data-js-integrity` / `data-wasm-integrity` on the
// meta, and web/boot.js fetches the two files itself with those hashes — at once on every
// page, after the first paint on a form page. The hashes are Trunk's own, so nothing is
// loaded without its SRI check.
//
// usage: node scripts/app-files.mjs web/dist/index.html [web/dist/console.html ...]
import { readFileSync, writeFileSync } from "node:fs";

const attributes = (tag) => {
  const found = {};
  for (const m of tag.matchAll(/([a-zA-Z][\w-]*)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s>]+))?/g)) {
    found[m[1].toLowerCase()] = (m[2] ?? "").replace(/^["']|["']$/g, "");
  }
  return found;
};

for (const path of process.argv.slice(2)) {
  let html = readFileSync(path, "utf8");
  const meta = html.match(/<meta\b[^>]*\bname="?vestibule-app"?[^>]*>/);
  if (!meta) throw new Error(`${path}: no vestibule-app meta`);
  const { "data-js": js, "data-wasm": wasm } = attributes(meta[0]);
  const hashes = {};
  html = html.replace(/<link\b[^>]*>/g, (tag) => {
    const a = attributes(tag.slice(5));
    const which = a.href === js ? "js" : a.href === wasm ? "wasm" : null;
    if (!which || !["modulepreload", "preload"].includes(a.rel)) return tag;
    if (!a.integrity) throw new Error(`${path}: ${a.href} has no integrity`);
    hashes[which] = a.integrity;
    return "";
  });
  if (!hashes.js || !hashes.wasm) throw new Error(`${path}: the preload links of ${js} and ${wasm} were not found`);
  const extended = meta[0].replace(/\s*\/?>$/, ` data-js-integrity="${hashes.js}" data-wasm-integrity="${hashes.wasm}">`);
  html = html.replace(meta[0], extended);
  writeFileSync(path, html);
  console.log(`app-files: ${path}: the app's files are fetched by boot.js (SRI kept)`);
}
