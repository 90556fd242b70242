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
const app = document.querySelector('meta[name="vestibule-app"]');
const { default: init } = await import(app.dataset.js);
await init({ module_or_path: app.dataset.wasm });
