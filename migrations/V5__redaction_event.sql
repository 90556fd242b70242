-- Retention redaction (`vestibule redact`) is audited like every other change to an
-- entry: one `redacted` event per entry whose email was replaced by a tombstone.
ALTER TABLE audit_events DROP CONSTRAINT audit_event_type;
ALTER TABLE audit_events ADD CONSTRAINT audit_event_type CHECK (event_type IN ('notice_published','signup','selected',
  'declined','invite_issued','delivery_recorded','invite_revoked','invite_expired','redeemed','grant_revoked',
  'withdrawn','content_updated','program_changed','redacted'));
