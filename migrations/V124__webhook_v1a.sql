-- Issue 30 item 7: an endpoint signs with Standard Webhooks' `v1` (HMAC-SHA256, the
-- default) or `v1a` (Ed25519). For `v1a` the sealed secret columns hold the private key's
-- 32-byte seed, and its public key is kept in the clear (it is shown as `whpk_…`).
ALTER TABLE webhook_endpoints
  ADD COLUMN signature_scheme text NOT NULL DEFAULT 'v1'
    CONSTRAINT webhook_endpoints_signature_scheme CHECK (signature_scheme IN ('v1', 'v1a')),
  ADD COLUMN public_key bytea CONSTRAINT webhook_endpoints_public_key CHECK (octet_length(public_key) = 32),
  ADD CONSTRAINT webhook_endpoints_v1a_has_public_key CHECK ((signature_scheme = 'v1a') = (public_key IS NOT NULL));
