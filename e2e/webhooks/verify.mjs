// Verifies captured Vestibule webhook deliveries with Standard Webhooks' official Node
// library (`v1`, through a secret rotation) and Node's own Ed25519 (`v1a`). Run by
// e2e/tests/api/webhook_libraries.rs with the capture file as argument.
import { readFileSync } from "node:fs";
import { createPublicKey, verify } from "node:crypto";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const { Webhook } = require("standardwebhooks");
const capture = JSON.parse(readFileSync(process.argv[2], "utf8"));
let checked = 0;

for (const message of capture.v1.messages) {
  for (const secret of message.signers) {
    new Webhook(secret).verify(message.body, message.headers); // throws on a bad signature
  }
  for (const secret of capture.v1.secrets.filter((s) => !message.signers.includes(s))) {
    let verified = true;
    try {
      new Webhook(secret).verify(message.body, message.headers);
    } catch {
      verified = false;
    }
    if (verified) throw new Error(`${message.headers["webhook-id"]} verified with a secret that did not sign it`);
  }
  checked++;
}

const raw = Buffer.from(capture.v1a.publicKey.replace(/^whpk_/, ""), "base64");
const key = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: raw.toString("base64url") }, format: "jwk" });
for (const message of capture.v1a.messages) {
  const h = message.headers;
  const signed = Buffer.from(`${h["webhook-id"]}.${h["webhook-timestamp"]}.${message.body}`);
  const sigs = h["webhook-signature"].split(" ").filter((s) => s.startsWith("v1a,"));
  if (sigs.length === 0) throw new Error(`no v1a signature on ${h["webhook-id"]}`);
  for (const sig of sigs) {
    if (!verify(null, signed, key, Buffer.from(sig.slice(4), "base64"))) throw new Error(`bad v1a signature on ${h["webhook-id"]}`);
  }
  checked++;
}
console.log(`node: ${checked} deliveries verified`);
