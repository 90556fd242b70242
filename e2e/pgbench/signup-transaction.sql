-- The signup admission transaction exactly as Vestibule sends it (api/src/db/signups.rs,
-- `admit_batch`): BEGIN, the call of V140's `admit_signups` (a batch of one, as a lone signup
-- sends) and COMMIT as one pipeline — one
-- round trip; the function takes the locks, reads, decides and writes inside the server.
-- Prepared statements (run with -M prepared). Values Vestibule computes on the client
-- (the binding HMAC, the screening flags) are SQL expressions or constants here of the
-- same types. Variables: nprog (1 or 16). Keep in step with signup-request.sql.
\set p random(1, :nprog)
\set k random(1, 2000000000)
\startpipeline
BEGIN ISOLATION LEVEL READ COMMITTED;
SELECT ord, outcome, stored_binding FROM admit_signups('00000000-0000-4000-a000-000000000001'::uuid, ARRAY[('00000000-0000-4000-8000-' || lpad(:p::text, 12, '0'))::uuid], ARRAY[md5(:k::text || '-' || :client_id::text)::uuid], ARRAY['u' || :k::text || '-' || :client_id::text || '@pgbench.example'], ARRAY[1], ARRAY[true], ARRAY[decode(md5(:k::text), 'hex') || decode(md5(:client_id::text), 'hex')], ARRAY[NULL]::text[], ARRAY[false], ARRAY[NULL]::text[], ARRAY[NULL]::bytea[], ARRAY[NULL]::timestamptz[]) ORDER BY ord;
COMMIT;
\endpipeline
