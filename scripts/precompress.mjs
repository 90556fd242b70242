// Writes NAME.br (brotli, quality 11) and NAME.gz (gzip, level 9) beside every
// compressible file of a built SPA directory, once, at build time, so the server only
// picks a stored variant by Accept-Encoding and never compresses per request. A variant
// is kept only when it is smaller than the original. Uses Node's own zlib (Node is already
// needed for wasm-opt), so nothing else is installed.
//
// usage: node scripts/precompress.mjs web/dist
import { readdirSync, readFileSync, writeFileSync, statSync, rmSync } from "node:fs";
import { join } from "node:path";
import { brotliCompressSync, gzipSync, constants } from "node:zlib";

const COMPRESSIBLE = /\.(html|js|mjs|css|wasm|json|svg|txt|map|xml|ico)$/;

function* files(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else yield path;
  }
}

const dir = process.argv[2];
if (!dir) {
  console.error("usage: node scripts/precompress.mjs DIR");
  process.exit(2);
}
// Stale variants of an earlier build go first.
for (const path of [...files(dir)]) {
  if (path.endsWith(".br") || path.endsWith(".gz")) rmSync(path);
}
let written = 0;
for (const path of [...files(dir)]) {
  if (!COMPRESSIBLE.test(path)) continue;
  const raw = readFileSync(path);
  const variants = {
    ".br": brotliCompressSync(raw, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: 11,
        [constants.BROTLI_PARAM_SIZE_HINT]: raw.length,
      },
    }),
    ".gz": gzipSync(raw, { level: 9 }),
  };
  for (const [suffix, bytes] of Object.entries(variants)) {
    if (bytes.length < raw.length) {
      writeFileSync(path + suffix, bytes);
      written += 1;
    }
  }
}
console.log(`precompress: ${written} brotli and gzip variants in ${dir}`);
