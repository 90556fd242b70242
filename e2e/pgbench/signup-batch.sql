-- One batch of `batch` new-key signups into one program as one transaction, as
-- `api/src/group.rs` sends it under load (BEGIN, V140's `admit_signups`, COMMIT in one
-- pipeline). tps × batch = signups a second: the work per signup under the program lock
-- as the batch grows. Run with -M prepared. Variables: nprog (1 or 16), batch.
\set p random(1, :nprog)
\startpipeline
BEGIN ISOLATION LEVEL READ COMMITTED;
SELECT count(*) FILTER (WHERE outcome = 'admitted') FROM admit_signups('00000000-0000-4000-a000-000000000001'::uuid, array_fill(('00000000-0000-4000-8000-' || lpad(:p::text, 12, '0'))::uuid, ARRAY[:batch::integer]), ARRAY(SELECT gen_random_uuid() FROM generate_series(1, :batch::integer)), ARRAY(SELECT 'u' || replace(gen_random_uuid()::text, '-', '') || '@pgbench.example' FROM generate_series(1, :batch::integer)), array_fill(1, ARRAY[:batch::integer]), array_fill(true, ARRAY[:batch::integer]), ARRAY(SELECT sha256(gen_random_uuid()::text::bytea) FROM generate_series(1, :batch::integer)), array_fill(NULL::text, ARRAY[:batch::integer]), array_fill(false, ARRAY[:batch::integer]), array_fill(NULL::text, ARRAY[:batch::integer]), array_fill(NULL::bytea, ARRAY[:batch::integer]), array_fill(NULL::timestamptz, ARRAY[:batch::integer]));
COMMIT;
\endpipeline
