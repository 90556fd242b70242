// Starts the SPA. Trunk would inject an inline module script for this, which the
// Content-Security-Policy (no inline script) refuses; Trunk.toml's `pattern_script` instead
// writes the hashed names of the wasm-bindgen glue and the .wasm onto a <meta> tag, and this
// file (served from 'self', hashed and covered by SRI like the rest) loads them.
const app = document.querySelector('meta[name="vestibule-app"]');
const { default: init } = await import(app.dataset.js);
await init({ module_or_path: app.dataset.wasm });
