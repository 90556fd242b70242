// Vestibule's proof-of-work solver (issue 15), run as a Web Worker so the form stays
// responsive. It speaks ALTCHA's classic challenge format: find `number` in
// 0..=maxnumber with hex(SHA-256(salt + number)) === challenge, then hand back the
// ALTCHA payload base64(JSON {algorithm, challenge, number, salt, signature, took}).
// In: {url} (the challenge route). Out: {payload, took, number} or {error}.
// SHA-256 is computed synchronously here (a Web Crypto digest per try costs a promise
// round trip each, several times slower for tens of thousands of tries).
"use strict";

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);
const W = new Uint32Array(64);
const H = new Uint32Array(8);

/** SHA-256 of the first `len` bytes of `m` into H; `m` has room for the padding and is
 * zero from `len` on (the caller keeps it so). */
function sha256(m, len) {
  const total = (((len + 9 + 63) >> 6) << 6);
  m[len] = 0x80;
  const bits = len * 8;
  m[total - 4] = bits >>> 24; m[total - 3] = (bits >>> 16) & 0xff; m[total - 2] = (bits >>> 8) & 0xff; m[total - 1] = bits & 0xff;
  let h0 = 0x6a09e667, h1 = 0xbb67ae85, h2 = 0x3c6ef372, h3 = 0xa54ff53a;
  let h4 = 0x510e527f, h5 = 0x9b05688c, h6 = 0x1f83d9ab, h7 = 0x5be0cd19;
  for (let off = 0; off < total; off += 64) {
    for (let i = 0; i < 16; i++) {
      const j = off + i * 4;
      W[i] = (m[j] << 24) | (m[j + 1] << 16) | (m[j + 2] << 8) | m[j + 3];
    }
    for (let i = 16; i < 64; i++) {
      const x = W[i - 15], y = W[i - 2];
      const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
      const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
      W[i] = (W[i - 16] + s0 + W[i - 7] + s1) | 0;
    }
    let a = h0, b = h1, c = h2, d = h3, e = h4, f = h5, g = h6, h = h7;
    for (let i = 0; i < 64; i++) {
      const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const t1 = (h + S1 + ((e & f) ^ (~e & g)) + K[i] + W[i]) | 0;
      const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const t2 = (S0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
      h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
    }
    h0 = (h0 + a) | 0; h1 = (h1 + b) | 0; h2 = (h2 + c) | 0; h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0; h5 = (h5 + f) | 0; h6 = (h6 + g) | 0; h7 = (h7 + h) | 0;
  }
  H[0] = h0; H[1] = h1; H[2] = h2; H[3] = h3; H[4] = h4; H[5] = h5; H[6] = h6; H[7] = h7;
  // Leave the tail zero for the next message.
  m.fill(0, len, total);
}

/** The number whose hash is `challenge` (64 hex digits), or null. */
function solve(challenge, salt, max) {
  const target = new Uint32Array(8);
  for (let i = 0; i < 8; i++) target[i] = parseInt(challenge.slice(i * 8, i * 8 + 8), 16);
  const prefix = new TextEncoder().encode(salt);
  const buf = new Uint8Array(prefix.length + 20 + 72);
  buf.set(prefix);
  for (let n = 0; n <= max; n++) {
    const digits = String(n);
    for (let i = 0; i < digits.length; i++) buf[prefix.length + i] = digits.charCodeAt(i);
    sha256(buf, prefix.length + digits.length);
    if (H[0] === target[0] && H[1] === target[1] && H[2] === target[2] && H[3] === target[3]
      && H[4] === target[4] && H[5] === target[5] && H[6] === target[6] && H[7] === target[7]) {
      return n;
    }
  }
  return null;
}

self.onmessage = async (event) => {
  try {
    const response = await fetch(event.data.url, { headers: { accept: "application/json" } });
    if (!response.ok) throw new Error(`challenge answered ${response.status}`);
    const c = await response.json();
    const started = performance.now();
    const number = solve(c.challenge, c.salt, c.maxnumber);
    if (number === null) throw new Error("no solution");
    const took = Math.round(performance.now() - started);
    const payload = btoa(JSON.stringify({
      algorithm: c.algorithm, challenge: c.challenge, number, salt: c.salt, signature: c.signature, took,
    }));
    self.postMessage({ payload, took, number });
  } catch (e) {
    self.postMessage({ error: String(e && e.message || e) });
  }
};
