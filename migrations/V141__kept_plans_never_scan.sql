-- Issue 28: the functions whose plans are made once per session (V105, V133, V134, V135,
-- V140: `plan_cache_mode = force_generic_plan`) were written so that each lookup's plan
-- is its index's whatever the statistics say when it is made — a never-analyzed table
-- included (the plan test of V105). Statistics that say a table is *empty or tiny* are
-- the other case, and the planner then rightly finds a scan cheaper: `pow_spent` analyzed
-- empty (before a deployment's first proof of work, or after its spent solutions expired
-- and were pruned), or a new deployment's `entries` analyzed at a handful of rows. That
-- plan is kept by every session until the next ANALYZE of the table — by autovacuum, up to
-- a minute later and only after it grew by a tenth — and every batch meanwhile scans the
-- whole table under the program locks: the bench's proof-of-work cells did, reading every
-- solution spent since the cell began (BENCHMARKS.md, "kept plans").
--
-- A scan is never what these functions mean: every table they read is read by a key it
-- has an index for. So, for these functions only, a sequential scan is taken only where no
-- index can serve (`enable_seqscan = off` makes it the last resort, not forbidden): the
-- small configuration tables read without a key index (webhook endpoints by workspace,
-- internal subscriptions) are still scanned, as before. Such a plan carries the planner's
-- penalty for a disabled scan in its estimated cost, which would put it far past
-- `jit_above_cost` and compile it to machine code on every execution (tens of
-- milliseconds, measured before this line was added: 22 ms per call for the outbox's
-- subscription check); these statements never gain from JIT, so it is off for the
-- functions too.
ALTER FUNCTION admit_signups(uuid, uuid[], uuid[], text[], integer[], boolean[], bytea[], text[], boolean[], text[],
  bytea[], timestamptz[]) SET enable_seqscan = off;
ALTER FUNCTION record_batch_answers(uuid[], uuid[], jsonb[], boolean[]) SET enable_seqscan = off;
ALTER FUNCTION lock_own_entry(uuid, text[]) SET enable_seqscan = off;
ALTER FUNCTION audit_chain_append() SET enable_seqscan = off;
ALTER FUNCTION admit_signups(uuid, uuid[], uuid[], text[], integer[], boolean[], bytea[], text[], boolean[], text[],
  bytea[], timestamptz[]) SET jit = off;
ALTER FUNCTION record_batch_answers(uuid[], uuid[], jsonb[], boolean[]) SET jit = off;
ALTER FUNCTION lock_own_entry(uuid, text[]) SET jit = off;
ALTER FUNCTION audit_chain_append() SET jit = off;
