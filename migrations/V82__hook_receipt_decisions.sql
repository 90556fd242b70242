-- Issue 26 item 8: a provider retries a before-user-created hook with the same
-- `webhook-id` when it got no answer; refusing the retry as a replay (401) refused a
-- sign-up that had been admitted. Each receipt now keeps the decision it was given and a
-- keyed binding of the message (HMAC under SIGNUP_BINDING_KEY over the workspace, the id
-- and the body: no plain digest of the email in the body). The same id with the same
-- body is answered with the decision given the first time; the same id with another
-- body is still refused, so a re-used id never admits a different email. Receipts made
-- before this migration have neither and are refused as replays, as before (they are
-- forgotten within minutes).
ALTER TABLE hook_receipts
  ADD COLUMN binding bytea CONSTRAINT hook_receipts_binding_len CHECK (octet_length(binding) = 32),
  ADD COLUMN admitted boolean;
