-- Integrations (issue 13): a transactional outbox fed by the audit history, and the
-- workspace's webhook endpoints (Standard Webhooks 1.0).
--
-- Every audit append that maps to an integration event type enqueues, in the same
-- transaction (an AFTER INSERT trigger on audit_events), one outbox_events row per type
-- with a target and one outbox_deliveries row per target: each enabled webhook endpoint
-- of the workspace subscribed to the type (and to the program, when it names programs),
-- and each internal target kind subscribed in outbox_internal_subscriptions (a later
-- feature adds its kind with an INSERT there). Delivery happens after COMMIT, in the API
-- processes' outbox worker; no network call runs inside a transaction.

CREATE TABLE webhook_endpoints (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces(id),
  url text NOT NULL CONSTRAINT webhook_endpoints_url CHECK (char_length(url) BETWEEN 10 AND 2000 AND url ~ '^https?://'),
  event_types text[] NOT NULL CONSTRAINT webhook_endpoints_event_types CHECK (cardinality(event_types) BETWEEN 1 AND 20),
  -- NULL: every program of the workspace.
  program_ids uuid[] CONSTRAINT webhook_endpoints_program_ids CHECK (cardinality(program_ids) BETWEEN 1 AND 100),
  enabled boolean NOT NULL DEFAULT true,
  disabled_reason text CONSTRAINT webhook_endpoints_disabled_reason CHECK (disabled_reason IN ('owner', 'failing')),
  -- The signing secret, sealed (AES-256-GCM under a key derived from the server key; the
  -- endpoint id is the associated data). The previous one keeps signing until its time.
  secret_sealed bytea NOT NULL,
  previous_secret_sealed bytea,
  previous_secret_until timestamptz,
  failing_since timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CONSTRAINT webhook_endpoints_enabled_reason CHECK (enabled = (disabled_reason IS NULL))
);
CREATE INDEX webhook_endpoints_ws_idx ON webhook_endpoints (workspace_id) WHERE enabled;

CREATE TABLE outbox_internal_subscriptions (
  target_kind text NOT NULL CONSTRAINT outbox_internal_kind CHECK (target_kind ~ '^[a-z][a-z_]{0,39}$' AND target_kind <> 'webhook'),
  event_type text NOT NULL CONSTRAINT outbox_internal_event_type CHECK (event_type ~ '^[a-z]+\.[a-z_]+$'),
  PRIMARY KEY (target_kind, event_type)
);

CREATE TABLE outbox_events (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  audit_event_id bigint NOT NULL REFERENCES audit_events(id),
  workspace_id uuid NOT NULL REFERENCES workspaces(id),
  program_id uuid NOT NULL REFERENCES programs(id),
  event_type text NOT NULL CONSTRAINT outbox_events_type CHECK (event_type ~ '^[a-z]+\.[a-z_]+$'),
  payload jsonb NOT NULL CONSTRAINT outbox_events_payload CHECK (jsonb_typeof(payload) = 'object' AND pg_column_size(payload) <= 1024),
  created_at timestamptz NOT NULL
);
CREATE INDEX outbox_events_audit_idx ON outbox_events (audit_event_id);

CREATE TABLE outbox_deliveries (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  event_id uuid NOT NULL REFERENCES outbox_events(id),
  target_kind text NOT NULL CONSTRAINT outbox_deliveries_kind CHECK (target_kind ~ '^[a-z][a-z_]{0,39}$'),
  endpoint_id uuid REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
  state text NOT NULL DEFAULT 'pending' CONSTRAINT outbox_deliveries_state CHECK (state IN ('pending', 'delivered', 'failed')),
  attempts integer NOT NULL DEFAULT 0 CONSTRAINT outbox_deliveries_attempts CHECK (attempts >= 0),
  next_attempt_at timestamptz NOT NULL,
  -- A claim is a lease: the claiming worker's id and when it lapses (then another
  -- worker may take the delivery again, with the same webhook-id).
  claim_id uuid,
  claimed_until timestamptz,
  finished_at timestamptz,
  created_at timestamptz NOT NULL,
  CONSTRAINT outbox_deliveries_endpoint CHECK ((target_kind = 'webhook') = (endpoint_id IS NOT NULL)),
  CONSTRAINT outbox_deliveries_once UNIQUE (event_id, target_kind, endpoint_id)
);
CREATE INDEX outbox_deliveries_due_idx ON outbox_deliveries (next_attempt_at) WHERE state = 'pending';
CREATE INDEX outbox_deliveries_endpoint_idx ON outbox_deliveries (endpoint_id, id) WHERE endpoint_id IS NOT NULL;

CREATE TABLE outbox_attempts (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  delivery_id bigint NOT NULL REFERENCES outbox_deliveries(id) ON DELETE CASCADE,
  attempted_at timestamptz NOT NULL,
  status_code integer CONSTRAINT outbox_attempts_status CHECK (status_code BETWEEN 100 AND 599),
  outcome text NOT NULL CONSTRAINT outbox_attempts_outcome CHECK (outcome IN
    ('delivered', 'http_status', 'timeout', 'connection', 'refused_target', 'handler_error')),
  latency_ms integer NOT NULL CONSTRAINT outbox_attempts_latency CHECK (latency_ms >= 0)
);
CREATE INDEX outbox_attempts_delivery_idx ON outbox_attempts (delivery_id, id);

-- Workspace-level owner actions (webhooks, API keys, the hook secret): append-only, ids
-- and action names only, like audit_events (which is per program).
CREATE TABLE workspace_audit_events (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces(id),
  actor_staff_id uuid NOT NULL REFERENCES staff_members(id),
  action text NOT NULL CONSTRAINT workspace_audit_action CHECK (action ~ '^[a-z][a-z_.]{0,39}$'),
  subject_id uuid,
  event_at timestamptz NOT NULL
);
CREATE INDEX workspace_audit_ws_idx ON workspace_audit_events (workspace_id, id);
CREATE TRIGGER workspace_audit_immutable BEFORE UPDATE OR DELETE ON workspace_audit_events
  FOR EACH ROW EXECUTE FUNCTION block_immutable_reference_edits();
CREATE TRIGGER workspace_audit_no_truncate BEFORE TRUNCATE ON workspace_audit_events
  FOR EACH STATEMENT EXECUTE FUNCTION block_immutable_reference_edits();

CREATE FUNCTION outbox_enqueue() RETURNS trigger LANGUAGE plpgsql AS $$
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
    IF NOT EXISTS (SELECT 1 FROM webhook_endpoints w WHERE w.workspace_id = ws AND w.enabled
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
      'state', CASE t WHEN 'entry.created' THEN 'waiting' WHEN 'entry.selected' THEN 'selected'
                      WHEN 'entry.declined' THEN 'declined' WHEN 'entry.withdrawn' THEN 'withdrawn'
                      WHEN 'invitation.issued' THEN 'issued' WHEN 'invitation.revoked' THEN 'revoked'
                      WHEN 'grant.created' THEN 'active' WHEN 'grant.revoked' THEN 'revoked' END,
      'revision', CASE t WHEN 'content.published' THEN NEW.details -> 'revision' END));
    INSERT INTO outbox_events (audit_event_id, workspace_id, program_id, event_type, payload, created_at)
    VALUES (NEW.id, ws, NEW.program_id, t, jsonb_build_object('type', t,
              'timestamp', to_char(NEW.event_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'), 'data', data),
            NEW.event_at)
    RETURNING id INTO ev;
    INSERT INTO outbox_deliveries (event_id, target_kind, endpoint_id, next_attempt_at, created_at)
    SELECT ev, 'webhook', w.id, NEW.event_at, NEW.event_at FROM webhook_endpoints w
     WHERE w.workspace_id = ws AND w.enabled AND t = ANY (w.event_types)
       AND (w.program_ids IS NULL OR NEW.program_id = ANY (w.program_ids))
    UNION ALL
    SELECT ev, s.target_kind, NULL, NEW.event_at, NEW.event_at FROM outbox_internal_subscriptions s WHERE s.event_type = t;
  END LOOP;
  RETURN NULL;
END $$;

CREATE TRIGGER audit_outbox AFTER INSERT ON audit_events FOR EACH ROW EXECUTE FUNCTION outbox_enqueue();

GRANT SELECT, INSERT, UPDATE, DELETE ON webhook_endpoints TO vestibule_app;
GRANT SELECT ON outbox_internal_subscriptions TO vestibule_app;
GRANT SELECT, INSERT ON outbox_events, workspace_audit_events TO vestibule_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON outbox_deliveries, outbox_attempts TO vestibule_app;
