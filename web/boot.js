// Starts the SPA. Trunk would inject an inline module script for this, which the
// Content-Security-Policy (no inline script) refuses; Trunk.toml's `pattern_script` instead
// writes the hashed names of the wasm-bindgen glue and the .wasm onto a <meta> tag, and this
// file (served from 'self', hashed and covered by SRI like the rest) loads them.
//
// On a signup form's page (issue 27) the proof of work starts here, with the page, not once
// the WASM has rendered the form: when the server wrote the program into the page
// (api/src/routes/form_page.rs) and it asks for work, /pow-worker.js fetches and solves the
// challenge while the WASM loads. `window.vestibulePow` holds the promise of its payload
// (or null on failure), which web/src/components/pow.rs takes over once.
const data = document.getElementById("vestibule-program");
const form = location.pathname.match(/^\/(?:embed\/)?waitlist\/([a-z0-9-]{3,60})$/);
if (data && form) {
  try {
    const program = JSON.parse(data.textContent);
    if (program.slug === form[1] && program.signupOpen && program.proofOfWork !== "off") {
      const worker = new Worker("/pow-worker.js");
      window.vestibulePow = new Promise((resolve) => {
        worker.onmessage = (event) => {
          resolve((event.data && event.data.payload) || null);
          worker.terminate();
        };
        worker.onerror = () => resolve(null);
      });
      worker.postMessage({ url: `/api/public/programs/${form[1]}/challenge` });
    }
  } catch (_) {
    // The form starts its own worker then.
  }
}

// The app's files, fetched here (scripts/app-files.mjs moved Trunk's preload links onto the
// meta, with their SRI hashes). On a form page the server has already written the whole
// first screen (#first-paint): the files are asked for only once the browser has reported
// that paint (its largest-contentful-paint entry), so the 290 KiB WASM never competes with
// it on a slow connection, and the app's copy of the form replaces the one already shown
// and measured (a copy removed before its paint was reported would not count, and the
// app's own would become the LCP). Elsewhere, or where the entry never comes (a hidden
// tab, a browser without the API), they are fetched at once or after 1.5 s; and at once in
// a frame (the embed on a host page, which web/embed.js keeps hidden until the app reports
// its height, so nothing in it is painted before the app runs).
function firstPaintShown() {
  const types = (window.PerformanceObserver && PerformanceObserver.supportedEntryTypes) || [];
  if (!document.getElementById("first-paint") || document.visibilityState === "hidden" ||
      window.self !== window.top || !types.includes("largest-contentful-paint")) {
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    const observer = new PerformanceObserver(() => {
      observer.disconnect();
      resolve();
    });
    observer.observe({ type: "largest-contentful-paint", buffered: true });
    setTimeout(resolve, 1500);
  });
}

await firstPaintShown();
const app = document.querySelector('meta[name="vestibule-app"]').dataset;
const glue = document.createElement("link");
glue.rel = "modulepreload";
glue.href = app.js;
if (app.jsIntegrity) glue.integrity = app.jsIntegrity;
document.head.append(glue);
// Downloaded whole, then compiled from the bytes: streaming compilation decodes the module
// on the main thread as it arrives, which on a fast link was one long task; compiling a
// whole buffer decodes it off the main thread. The app then starts in a task of its own.
const compiled = fetch(app.wasm, app.wasmIntegrity ? { integrity: app.wasmIntegrity } : {})
  .then((response) => response.arrayBuffer())
  .then((bytes) => WebAssembly.compile(bytes));
const { default: init } = await import(app.js);
const module = await compiled;
await new Promise((resolve) => setTimeout(resolve, 0));
await init({ module_or_path: module });
