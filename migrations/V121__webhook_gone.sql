-- Issue 30 item 4: a receiver's `410 Gone` disables its endpoint at once, with its own
-- reason beside the owner's switch and three days of failures.
ALTER TABLE webhook_endpoints DROP CONSTRAINT webhook_endpoints_disabled_reason;
ALTER TABLE webhook_endpoints ADD CONSTRAINT webhook_endpoints_disabled_reason
  CHECK (disabled_reason IN ('owner', 'failing', 'gone'));
