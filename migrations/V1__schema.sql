-- Vestibule schema, version 1. Table and column names follow the reference schema so
-- operators can query them; additions are marked. Constraints are named so the API can
-- map a conflict the database caught to a client answer.

CREATE EXTENSION IF NOT EXISTS pgcrypto;

CREATE TABLE workspaces (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name text NOT NULL CONSTRAINT workspaces_name_len CHECK (char_length(name) BETWEEN 1 AND 120),
  active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);

CREATE TABLE staff_members (
  -- addition: a surrogate id, so history and audit rows can name an owner without
  -- copying the identity provider's user id.
  id uuid NOT NULL DEFAULT gen_random_uuid() CONSTRAINT staff_members_id_key UNIQUE,
  workspace_id uuid NOT NULL REFERENCES workspaces(id),
  clerk_user_id text NOT NULL CONSTRAINT staff_members_clerk_len CHECK (length(clerk_user_id) BETWEEN 1 AND 128),
  role text NOT NULL CONSTRAINT staff_members_role CHECK (role IN ('owner')),
  active boolean NOT NULL DEFAULT true,
  PRIMARY KEY (workspace_id, clerk_user_id)
);
CREATE INDEX staff_members_user_idx ON staff_members (clerk_user_id) WHERE active;

-- addition: the append-only history of owner membership changes (SPEC §7).
CREATE TABLE staff_admin_events (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces(id),
  staff_member_id uuid NOT NULL REFERENCES staff_members(id),
  action text NOT NULL CONSTRAINT staff_admin_events_action CHECK (action IN ('bootstrap', 'grant', 'revoke')),
  approval_ref text NOT NULL CONSTRAINT staff_admin_events_ref_len CHECK (char_length(approval_ref) BETWEEN 1 AND 200),
  event_at timestamptz NOT NULL
);
CREATE INDEX staff_admin_events_ws_idx ON staff_admin_events (workspace_id, id);

CREATE TABLE programs (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  workspace_id uuid NOT NULL REFERENCES workspaces(id),
  public_slug text NOT NULL CONSTRAINT programs_public_slug_key UNIQUE
    CONSTRAINT programs_slug_grammar CHECK (public_slug ~ '^[a-z0-9-]{3,60}$'),
  purpose text NOT NULL CONSTRAINT programs_purpose_len CHECK (char_length(purpose) BETWEEN 1 AND 1000),
  signup_open boolean NOT NULL DEFAULT false,
  access_enabled boolean NOT NULL DEFAULT false,
  queue_cap integer NOT NULL CONSTRAINT programs_queue_cap CHECK (queue_cap BETWEEN 1 AND 100000),
  hourly_cap integer NOT NULL CONSTRAINT programs_hourly_cap CHECK (hourly_cap BETWEEN 1 AND 100000),
  seat_cap integer NOT NULL CONSTRAINT programs_seat_cap CHECK (seat_cap BETWEEN 1 AND 100000),
  -- addition: the owner's maximum invitation lifetime in days.
  max_invite_days integer NOT NULL CONSTRAINT programs_max_invite_days CHECK (max_invite_days BETWEEN 1 AND 30),
  revision bigint NOT NULL DEFAULT 1 CONSTRAINT programs_revision CHECK (revision > 0),
  current_notice_id uuid,
  -- addition: the current notice's version, kept with current_notice_id under the program
  -- lock so admission reads one row.
  current_notice_version integer,
  -- addition: non-withdrawn entries, maintained under the program lock, so the queue cap
  -- check costs the same at any queue length (no count(*) under the lock).
  queue_count integer NOT NULL DEFAULT 0 CONSTRAINT programs_queue_count CHECK (queue_count >= 0),
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  CONSTRAINT programs_id_workspace_key UNIQUE (id, workspace_id),
  CONSTRAINT programs_notice_pair CHECK ((current_notice_id IS NULL) = (current_notice_version IS NULL))
);
CREATE INDEX programs_workspace_idx ON programs (workspace_id, created_at);

CREATE TABLE notices (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  program_id uuid NOT NULL REFERENCES programs(id),
  version integer NOT NULL CONSTRAINT notices_version CHECK (version > 0),
  purpose text NOT NULL CONSTRAINT notices_purpose_len CHECK (char_length(purpose) BETWEEN 1 AND 1000),
  contact_text text NOT NULL CONSTRAINT notices_contact_len CHECK (char_length(contact_text) BETWEEN 1 AND 2000),
  retention_text text NOT NULL CONSTRAINT notices_retention_len CHECK (char_length(retention_text) BETWEEN 1 AND 1000),
  published_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  CONSTRAINT notices_program_version_key UNIQUE (program_id, version),
  CONSTRAINT notices_id_program_key UNIQUE (id, program_id),
  -- addition: lets programs point at (notice id, version) of its own notices only.
  CONSTRAINT notices_id_program_version_key UNIQUE (id, program_id, version)
);

ALTER TABLE programs ADD CONSTRAINT current_notice_same_program
  FOREIGN KEY (current_notice_id, id, current_notice_version) REFERENCES notices (id, program_id, version);

CREATE TABLE entries (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  program_id uuid NOT NULL REFERENCES programs(id),
  email_key text NOT NULL CONSTRAINT entries_email_len CHECK (length(email_key) BETWEEN 3 AND 254),
  notice_id uuid NOT NULL,
  permission_at timestamptz NOT NULL,
  state text NOT NULL CONSTRAINT entries_state CHECK (state IN ('waiting','selected','invited','active','declined','withdrawn','revoked')),
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  -- addition: set when retention redaction replaced email_key with a tombstone.
  redacted_at timestamptz,
  CONSTRAINT entries_program_email_key UNIQUE (program_id, email_key),
  CONSTRAINT entries_id_program_key UNIQUE (id, program_id),
  CONSTRAINT entries_notice_same_program FOREIGN KEY (notice_id, program_id) REFERENCES notices (id, program_id)
);
CREATE INDEX entries_queue_idx ON entries (program_id, state, created_at, id);
CREATE INDEX entries_program_order_idx ON entries (program_id, created_at, id);
CREATE INDEX entries_email_idx ON entries (email_key);

CREATE TABLE signup_receipts (
  program_id uuid NOT NULL REFERENCES programs(id),
  request_key uuid NOT NULL,
  binding_hmac bytea NOT NULL CONSTRAINT signup_receipts_binding_len CHECK (octet_length(binding_hmac) = 32),
  response_code integer NOT NULL DEFAULT 202 CONSTRAINT signup_receipts_code CHECK (response_code = 202),
  accepted_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  -- addition: the entry this receipt admitted or matched (a duplicate points at the original).
  entry_id uuid,
  CONSTRAINT signup_receipts_pkey PRIMARY KEY (program_id, request_key),
  CONSTRAINT signup_receipts_entry_same_program FOREIGN KEY (entry_id, program_id) REFERENCES entries (id, program_id)
);

CREATE TABLE intake_hours (
  program_id uuid NOT NULL REFERENCES programs(id),
  bucket_start timestamptz NOT NULL,
  admitted_count integer NOT NULL CONSTRAINT intake_hours_count CHECK (admitted_count >= 0),
  CONSTRAINT intake_hours_pkey PRIMARY KEY (program_id, bucket_start),
  CONSTRAINT intake_hours_bucket_is_hour CHECK (bucket_start = date_trunc('hour', bucket_start AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')
);

CREATE TABLE invitations (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  program_id uuid NOT NULL,
  entry_id uuid NOT NULL,
  token_sha256 bytea NOT NULL CONSTRAINT invitations_token_sha256_key UNIQUE
    CONSTRAINT invitations_digest_len CHECK (octet_length(token_sha256) = 32),
  state text NOT NULL CONSTRAINT invitations_state CHECK (state IN ('issued','redeemed','revoked','expired')),
  issued_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL CONSTRAINT invitations_expiry CHECK (expires_at > issued_at),
  delivery_recorded_at timestamptz,
  delivery_channel text CONSTRAINT invitations_channel_len CHECK (delivery_channel IS NULL OR char_length(delivery_channel) BETWEEN 1 AND 80),
  delivery_reference text CONSTRAINT invitations_reference_len CHECK (delivery_reference IS NULL OR char_length(delivery_reference) BETWEEN 1 AND 160),
  terminal_at timestamptz,
  CONSTRAINT invitations_entry_same_program FOREIGN KEY (entry_id, program_id) REFERENCES entries (id, program_id),
  CONSTRAINT invitations_id_entry_program_key UNIQUE (id, entry_id, program_id),
  CONSTRAINT invitations_delivery_pair CHECK ((delivery_recorded_at IS NULL) = (delivery_channel IS NULL)),
  CONSTRAINT invitations_reference_needs_delivery CHECK (delivery_reference IS NULL OR delivery_recorded_at IS NOT NULL),
  CONSTRAINT invitations_terminal CHECK ((state = 'issued') = (terminal_at IS NULL))
);
CREATE UNIQUE INDEX one_issued_invite_per_entry ON invitations (entry_id) WHERE state = 'issued';
CREATE INDEX invite_entry_idx ON invitations (entry_id, issued_at DESC);
CREATE INDEX invite_program_issued_idx ON invitations (program_id, expires_at) WHERE state = 'issued';

CREATE TABLE owner_action_receipts (
  program_id uuid NOT NULL REFERENCES programs(id),
  request_key uuid NOT NULL,
  action text NOT NULL CONSTRAINT owner_action_receipts_action CHECK (action IN ('issue_invitation','record_delivery','bulk_issue')),
  binding_hmac bytea NOT NULL CONSTRAINT owner_action_receipts_binding_len CHECK (octet_length(binding_hmac) = 32),
  target_id uuid NOT NULL,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  CONSTRAINT owner_action_receipts_pkey PRIMARY KEY (program_id, request_key)
);

CREATE TABLE grants (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  program_id uuid NOT NULL,
  entry_id uuid NOT NULL,
  invitation_id uuid NOT NULL CONSTRAINT grants_invitation_id_key UNIQUE,
  clerk_user_id text NOT NULL CONSTRAINT grants_clerk_len CHECK (length(clerk_user_id) BETWEEN 1 AND 128),
  active boolean NOT NULL DEFAULT true,
  granted_at timestamptz NOT NULL,
  revoked_at timestamptz,
  CONSTRAINT grants_entry_same_program FOREIGN KEY (entry_id, program_id) REFERENCES entries (id, program_id),
  CONSTRAINT grants_invitation_same_entry FOREIGN KEY (invitation_id, entry_id, program_id) REFERENCES invitations (id, entry_id, program_id),
  CONSTRAINT grants_entry_id_key UNIQUE (entry_id),
  CONSTRAINT grants_program_user_key UNIQUE (program_id, clerk_user_id),
  CONSTRAINT grants_active_revoked CHECK ((active AND revoked_at IS NULL) OR (NOT active AND revoked_at IS NOT NULL))
);
CREATE INDEX grants_program_active_idx ON grants (program_id) WHERE active;

CREATE TABLE early_access_content (
  program_id uuid PRIMARY KEY REFERENCES programs(id),
  revision bigint NOT NULL DEFAULT 1 CONSTRAINT content_revision CHECK (revision > 0),
  body text NOT NULL CONSTRAINT content_body_len CHECK (char_length(body) BETWEEN 1 AND 20000),
  updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
);

CREATE TABLE audit_events (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  program_id uuid NOT NULL REFERENCES programs(id),
  entry_id uuid,
  actor_kind text NOT NULL CONSTRAINT audit_actor_kind CHECK (actor_kind IN ('owner','recipient','public','system')),
  -- changed from the reference: the acting owner is named by staff_members.id, never by
  -- the identity provider's user id (events hold ids of our own rows only).
  actor_staff_id uuid REFERENCES staff_members(id),
  event_type text NOT NULL CONSTRAINT audit_event_type CHECK (event_type IN ('notice_published','signup','selected','declined','invite_issued','delivery_recorded','invite_revoked','invite_expired','redeemed','grant_revoked','withdrawn','content_updated','program_changed')),
  event_at timestamptz NOT NULL,
  details jsonb NOT NULL DEFAULT '{}'::jsonb CONSTRAINT audit_details_shape CHECK (jsonb_typeof(details) = 'object' AND pg_column_size(details) <= 512),
  CONSTRAINT audit_entry_same_program FOREIGN KEY (entry_id, program_id) REFERENCES entries (id, program_id)
);
CREATE INDEX audit_program_idx ON audit_events (program_id, id);
CREATE INDEX audit_entry_idx ON audit_events (entry_id, id) WHERE entry_id IS NOT NULL;

-- addition: fixed-window attempt counters for rate limits, shared by every API instance.
-- `subject` is an HMAC of the client address or account, never the raw value.
CREATE TABLE rate_limit_counters (
  scope text NOT NULL CONSTRAINT rate_limit_scope CHECK (scope IN ('signup_addr','redeem_user','redeem_addr')),
  subject bytea NOT NULL CONSTRAINT rate_limit_subject_len CHECK (octet_length(subject) = 32),
  window_start timestamptz NOT NULL,
  hits integer NOT NULL CONSTRAINT rate_limit_hits CHECK (hits >= 0),
  CONSTRAINT rate_limit_counters_pkey PRIMARY KEY (scope, subject, window_start)
);
CREATE INDEX rate_limit_window_idx ON rate_limit_counters (window_start);

CREATE FUNCTION block_immutable_reference_edits() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'append-only table % rejects %', TG_TABLE_NAME, TG_OP USING ERRCODE = 'P0001';
END $$;
CREATE TRIGGER notices_immutable BEFORE UPDATE OR DELETE ON notices
  FOR EACH ROW EXECUTE FUNCTION block_immutable_reference_edits();
CREATE TRIGGER audit_immutable BEFORE UPDATE OR DELETE ON audit_events
  FOR EACH ROW EXECUTE FUNCTION block_immutable_reference_edits();
CREATE TRIGGER staff_admin_events_immutable BEFORE UPDATE OR DELETE ON staff_admin_events
  FOR EACH ROW EXECUTE FUNCTION block_immutable_reference_edits();
CREATE TRIGGER notices_no_truncate BEFORE TRUNCATE ON notices
  FOR EACH STATEMENT EXECUTE FUNCTION block_immutable_reference_edits();
CREATE TRIGGER audit_no_truncate BEFORE TRUNCATE ON audit_events
  FOR EACH STATEMENT EXECUTE FUNCTION block_immutable_reference_edits();
CREATE TRIGGER staff_admin_events_no_truncate BEFORE TRUNCATE ON staff_admin_events
  FOR EACH STATEMENT EXECUTE FUNCTION block_immutable_reference_edits();
