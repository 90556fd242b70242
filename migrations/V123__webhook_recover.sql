-- Issue 30 item 6: events of a disabled endpoint's subscription are recorded. Until now
-- `outbox_enqueue` made deliveries for enabled endpoints only, so what happened while an
-- endpoint was disabled was lost to it. Now every subscribed endpoint gets its delivery;
-- a disabled one's is `skipped` (recorded, never claimed), listed in its delivery log, and
-- sent by `POST …/webhooks/{webhookId}/recover` (which makes it pending again). Everything
-- else in the function is as V83 wrote it.
ALTER TABLE outbox_deliveries DROP CONSTRAINT outbox_deliveries_state;
ALTER TABLE outbox_deliveries ADD CONSTRAINT outbox_deliveries_state
  CHECK (state IN ('pending', 'delivered', 'failed', 'skipped'));

CREATE OR REPLACE FUNCTION outbox_enqueue() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  types text[];
  t text;
  ws uuid;
  ev uuid;
  data jsonb;
BEGIN
  types := CASE NEW.event_type
    WHEN 'signup' THEN ARRAY['entry.created']
    WHEN 'selected' THEN ARRAY['entry.selected']
    WHEN 'declined' THEN ARRAY['entry.declined']
    WHEN 'withdrawn' THEN ARRAY['entry.withdrawn']
      || CASE WHEN NEW.details ? 'invitationRevoked' THEN ARRAY['invitation.revoked'] ELSE ARRAY[]::text[] END
      || CASE WHEN NEW.details ? 'grantRevoked' THEN ARRAY['grant.revoked'] ELSE ARRAY[]::text[] END
    WHEN 'invite_issued' THEN ARRAY['invitation.issued']
    WHEN 'invite_revoked' THEN ARRAY['invitation.revoked']
    WHEN 'redeemed' THEN ARRAY['grant.created']
    WHEN 'grant_revoked' THEN ARRAY['grant.revoked']
    WHEN 'content_updated' THEN ARRAY['content.published']
  END;
  IF types IS NULL THEN
    RETURN NULL;
  END IF;
  SELECT workspace_id INTO ws FROM programs WHERE id = NEW.program_id;
  FOREACH t IN ARRAY types LOOP
    IF NOT EXISTS (SELECT 1 FROM webhook_endpoints w WHERE w.workspace_id = ws
                     AND t = ANY (w.event_types) AND (w.program_ids IS NULL OR NEW.program_id = ANY (w.program_ids)))
       AND NOT EXISTS (SELECT 1 FROM outbox_internal_subscriptions s WHERE s.event_type = t) THEN
      CONTINUE;
    END IF;
    data := jsonb_strip_nulls(jsonb_build_object(
      'workspaceId', ws,
      'programId', NEW.program_id,
      'entryId', NEW.entry_id,
      'invitationId', CASE t WHEN 'invitation.issued' THEN NEW.details ->> 'invitationId'
                             WHEN 'invitation.revoked' THEN coalesce(NEW.details ->> 'invitationId', NEW.details ->> 'invitationRevoked') END,
      'grantId', CASE t WHEN 'grant.created' THEN NEW.details ->> 'grantId'
                        WHEN 'grant.revoked' THEN coalesce(NEW.details ->> 'grantId', NEW.details ->> 'grantRevoked') END,
      'state', CASE t WHEN 'entry.created' THEN (SELECT e.state FROM entries e WHERE e.id = NEW.entry_id) WHEN 'entry.selected' THEN 'selected'
                      WHEN 'entry.declined' THEN 'declined' WHEN 'entry.withdrawn' THEN 'withdrawn'
                      WHEN 'invitation.issued' THEN 'issued' WHEN 'invitation.revoked' THEN 'revoked'
                      WHEN 'grant.created' THEN 'active' WHEN 'grant.revoked' THEN 'revoked' END,
      'revision', CASE t WHEN 'content.published' THEN NEW.details -> 'revision' END));
    INSERT INTO outbox_events (audit_event_id, workspace_id, program_id, event_type, payload, created_at)
    VALUES (NEW.id, ws, NEW.program_id, t, jsonb_build_object('type', t,
              'timestamp', to_char(NEW.event_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'), 'data', data),
            NEW.event_at)
    RETURNING id INTO ev;
    INSERT INTO outbox_deliveries (event_id, target_kind, endpoint_id, state, next_attempt_at, created_at)
    SELECT ev, 'webhook', w.id, CASE WHEN w.enabled THEN 'pending' ELSE 'skipped' END, NEW.event_at, NEW.event_at
      FROM webhook_endpoints w
     WHERE w.workspace_id = ws AND t = ANY (w.event_types)
       AND (w.program_ids IS NULL OR NEW.program_id = ANY (w.program_ids))
    UNION ALL
    SELECT ev, s.target_kind, NULL, 'pending', NEW.event_at, NEW.event_at FROM outbox_internal_subscriptions s WHERE s.event_type = t;
  END LOOP;
  RETURN NULL;
END $$;
