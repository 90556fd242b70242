"""Verifies captured Vestibule webhook deliveries with Standard Webhooks' official Python
library (`v1`, through a secret rotation) and a plain Ed25519 verifier (`v1a`), and
validates every body against its event type's JSON Schema read from the served OpenAPI
document. Run by e2e/tests/api/webhook_libraries.rs with the capture file as argument."""

import base64
import json
import sys

import jsonschema
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

capture = json.load(open(sys.argv[1]))
webhooks = capture["openapi"]["webhooks"]
checked, types = 0, set()


def schema_check(body):
    payload = json.loads(body)
    schema = webhooks[payload["type"]]["post"]["requestBody"]["content"]["application/json"]["schema"]
    jsonschema.validate(payload, schema, cls=jsonschema.Draft202012Validator, format_checker=jsonschema.FormatChecker())
    types.add(payload["type"])


v1 = capture["v1"]
for message in v1["messages"]:
    for secret in message["signers"]:
        Webhook(secret).verify(message["body"], message["headers"])
    for secret in set(v1["secrets"]) - set(message["signers"]):
        try:
            Webhook(secret).verify(message["body"], message["headers"])
        except WebhookVerificationError:
            pass
        else:
            sys.exit(f"{message['headers']['webhook-id']} verified with a secret that did not sign it")
    schema_check(message["body"])
    checked += 1

v1a = capture["v1a"]
key = Ed25519PublicKey.from_public_bytes(base64.b64decode(v1a["publicKey"].removeprefix("whpk_")))
for message in v1a["messages"]:
    h = message["headers"]
    signed = f"{h['webhook-id']}.{h['webhook-timestamp']}.".encode() + message["body"].encode()
    sigs = [s.removeprefix("v1a,") for s in h["webhook-signature"].split() if s.startswith("v1a,")]
    assert sigs, f"no v1a signature on {h['webhook-id']}"
    for sig in sigs:
        key.verify(base64.b64decode(sig), signed)  # raises InvalidSignature
    schema_check(message["body"])
    checked += 1

missing = set(webhooks) - types
if missing:
    sys.exit(f"no delivery of {sorted(missing)}")
print(f"python: {checked} deliveries verified, {len(types)} event types valid against their schemas")
