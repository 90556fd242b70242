-- Everything one new-key signup request sends to PostgreSQL, in order (api/src/routes/
-- public/signup.rs): the slug and receipt lookup (an autocommit statement), the
-- per-address rate-limit hit (api/src/db/rate_limits.rs: BEGIN, asynchronous commit,
-- upsert, COMMIT in one pipeline), then the admission transaction of
-- signup-transaction.sql (one pipelined call of `admit_signups` with a batch of one: what a
-- lone signup sends; pgbench cannot gather batches, so under load the API sends fewer, larger calls). The rate-limit subject
-- is one constant, as it is for the benchmark's load, which all comes from 127.0.0.1.
-- Run with -M prepared.
-- Variables: nprog (1 or 16). Keep in step with signup-transaction.sql.
\set p random(1, :nprog)
\set k random(1, 2000000000)
SELECT p.id, p.workspace_id, EXISTS (SELECT 1 FROM signup_receipts r WHERE r.program_id = p.id AND r.request_key = md5(:k::text || '-' || :client_id::text)::uuid) FROM programs p WHERE p.public_slug = 'pgbench-' || :p::text;
\startpipeline
BEGIN;
SET LOCAL synchronous_commit TO off;
INSERT INTO rate_limit_counters (scope, subject, window_start, hits) VALUES ('signup_addr', decode(md5('127.0.0.1'), 'hex') || decode(md5('127.0.0.1'), 'hex'), to_timestamp(floor(extract(epoch FROM clock_timestamp())::float8 / 60::float8) * 60::float8), 1) ON CONFLICT (scope, subject, window_start) DO UPDATE SET hits = rate_limit_counters.hits + 1 RETURNING hits;
COMMIT;
\endpipeline
\startpipeline
BEGIN ISOLATION LEVEL READ COMMITTED;
SELECT ord, outcome, stored_binding FROM admit_signups('00000000-0000-4000-a000-000000000001'::uuid, ARRAY[('00000000-0000-4000-8000-' || lpad(:p::text, 12, '0'))::uuid], ARRAY[md5(:k::text || '-' || :client_id::text)::uuid], ARRAY['u' || :k::text || '-' || :client_id::text || '@pgbench.example'], ARRAY[1], ARRAY[true], ARRAY[decode(md5(:k::text), 'hex') || decode(md5(:client_id::text), 'hex')], ARRAY[NULL]::text[], ARRAY[false], ARRAY[NULL]::text[], ARRAY[NULL]::bytea[], ARRAY[NULL]::timestamptz[]) ORDER BY ord;
COMMIT;
\endpipeline
