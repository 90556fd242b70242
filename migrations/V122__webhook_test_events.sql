-- Issue 30 item 5: `POST …/webhooks/{webhookId}/test` queues a `webhook.test` event for
-- one endpoint. It comes from no audit event and belongs to no program; every other
-- outbox event still has both.
ALTER TABLE outbox_events ALTER COLUMN audit_event_id DROP NOT NULL,
  ALTER COLUMN program_id DROP NOT NULL;
ALTER TABLE outbox_events ADD CONSTRAINT outbox_events_test_only_unsourced
  CHECK (event_type = 'webhook.test' OR (audit_event_id IS NOT NULL AND program_id IS NOT NULL));
