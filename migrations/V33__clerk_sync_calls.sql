-- The delivery log of "on grant, in Clerk" (issue 14): every Backend API call a
-- clerk_sync attempt made, with its result, for the owner's log
-- (`GET /api/owner/programs/{id}/clerk-sync/deliveries`). One outbox attempt makes
-- several calls (metadata, then membership), so the attempt's one status is not enough.
-- Only the call's name and result are kept: never the Clerk user id, an email, an
-- organization secret or a response body (the grant and entry ids come from the
-- outbox event's payload, which carries ids of Vestibule's own rows only).
CREATE TABLE clerk_sync_calls (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  attempt_id bigint NOT NULL REFERENCES outbox_attempts(id) ON DELETE CASCADE,
  program_id uuid NOT NULL REFERENCES programs(id),
  call text NOT NULL CONSTRAINT clerk_sync_calls_call CHECK (call IN
    ('metadata_add', 'metadata_remove', 'membership_check', 'membership_add', 'membership_remove')),
  -- succeeded (a removal answered 404 counts: nothing left to remove), an HTTP status
  -- that is not success, or no answer at all (connection refused, reset or timed out).
  outcome text NOT NULL CONSTRAINT clerk_sync_calls_outcome CHECK (outcome IN ('succeeded', 'http_status', 'connection')),
  status_code integer CONSTRAINT clerk_sync_calls_status CHECK (status_code BETWEEN 100 AND 599),
  called_at timestamptz NOT NULL,
  CONSTRAINT clerk_sync_calls_status_known CHECK ((outcome = 'connection') = (status_code IS NULL))
);
CREATE INDEX clerk_sync_calls_program_idx ON clerk_sync_calls (program_id, id);
CREATE INDEX clerk_sync_calls_attempt_idx ON clerk_sync_calls (attempt_id);

GRANT SELECT, INSERT ON clerk_sync_calls TO vestibule_app;
