-- The signup admission transaction exactly as Vestibule sends it (api/src/db/signups.rs,
-- `admit`, through `db::transaction`): BEGIN; one pipeline of the lock statements and
-- the fresh reads; one pipeline of the writes; COMMIT. Four round trips, prepared
-- statements (run with -M prepared). Values Vestibule computes on the client (entry id,
-- binding HMAC, the captured clock) are SQL expressions here of the same types.
-- Variables: nprog (1 or 16). Keep in step with signup-request.sql.
\set p random(1, :nprog)
\set k random(1, 2000000000)
BEGIN ISOLATION LEVEL READ COMMITTED;
\startpipeline
SELECT active FROM workspaces WHERE id = '00000000-0000-4000-a000-000000000001'::uuid FOR KEY SHARE;
SELECT id, workspace_id, public_slug, purpose, signup_open, access_enabled, queue_cap, hourly_cap, seat_cap, max_invite_days, revision, current_notice_id, current_notice_version, queue_count, created_at FROM programs WHERE id = ('00000000-0000-4000-8000-' || lpad(:p::text, 12, '0'))::uuid AND workspace_id = '00000000-0000-4000-a000-000000000001'::uuid FOR UPDATE;
SELECT binding_hmac FROM signup_receipts WHERE program_id = ('00000000-0000-4000-8000-' || lpad(:p::text, 12, '0'))::uuid AND request_key = md5(:k::text || '-' || :client_id::text)::uuid;
SELECT c.at, c.bucket, coalesce((SELECT admitted_count FROM intake_hours WHERE program_id = ('00000000-0000-4000-8000-' || lpad(:p::text, 12, '0'))::uuid AND bucket_start = c.bucket), 0) FROM (SELECT t.at, date_trunc('hour', t.at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS bucket FROM (SELECT clock_timestamp() AS at) t) c;
SELECT id FROM entries WHERE program_id = ('00000000-0000-4000-8000-' || lpad(:p::text, 12, '0'))::uuid AND email_key = 'u' || :k::text || '-' || :client_id::text || '@pgbench.example';
\endpipeline
\startpipeline
INSERT INTO entries (id, program_id, email_key, notice_id, permission_at, state, created_at, updated_at) VALUES (md5('e' || :k::text || '-' || :client_id::text)::uuid, ('00000000-0000-4000-8000-' || lpad(:p::text, 12, '0'))::uuid, 'u' || :k::text || '-' || :client_id::text || '@pgbench.example', ('00000000-0000-4000-9000-' || lpad(:p::text, 12, '0'))::uuid, clock_timestamp(), 'waiting', clock_timestamp(), clock_timestamp());
UPDATE programs SET queue_count = queue_count + 1 WHERE id = ('00000000-0000-4000-8000-' || lpad(:p::text, 12, '0'))::uuid AND queue_count < queue_cap RETURNING queue_count;
INSERT INTO intake_hours (program_id, bucket_start, admitted_count) VALUES (('00000000-0000-4000-8000-' || lpad(:p::text, 12, '0'))::uuid, date_trunc('hour', clock_timestamp() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', 1) ON CONFLICT (program_id, bucket_start) DO UPDATE SET admitted_count = intake_hours.admitted_count + 1 WHERE intake_hours.admitted_count < 100000 RETURNING admitted_count;
INSERT INTO signup_receipts (program_id, request_key, binding_hmac, entry_id, accepted_at) VALUES (('00000000-0000-4000-8000-' || lpad(:p::text, 12, '0'))::uuid, md5(:k::text || '-' || :client_id::text)::uuid, decode(md5(:k::text), 'hex') || decode(md5(:client_id::text), 'hex'), md5('e' || :k::text || '-' || :client_id::text)::uuid, clock_timestamp());
INSERT INTO audit_events (program_id, entry_id, actor_kind, actor_staff_id, event_type, event_at, details) VALUES (('00000000-0000-4000-8000-' || lpad(:p::text, 12, '0'))::uuid, md5('e' || :k::text || '-' || :client_id::text)::uuid, 'public', NULL, 'signup', clock_timestamp(), '{"noticeVersion":1}'::jsonb) RETURNING id;
\endpipeline
COMMIT;
