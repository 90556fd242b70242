-- Issue 28 (in issue 31's range, since it replaces V131's function and must come after it): V131's `record_batch_answers` is a SQL function that
-- PostgreSQL cannot inline (it inserts), so the SQL-function executor parsed, analyzed and
-- planned its statement again on every call — inside the admission's transaction, under
-- the program lock, once per batch that carries answers. The full bench after V105 showed
-- it: three answers at 84 % of none (issue 31's target ≥ 90 %), where `admit_signups` had
-- just become cheaper around it.
--
-- The same function in PL/pgSQL, with its plan made once per session (as V105 does for
-- `admit_signups`). Its joins become per-element scalar lookups — the receipt by its
-- whole key, the entry by its id — so the kept generic plan cannot scan a table whatever
-- the statistics were when it was made. What it stores is V131's, row for row: per entry
-- this transaction created (its receipt's and its own `xmin` are the current
-- transaction's), the answers of the first attempt of the batch, in arrival order, whose
-- receipt points at it — only when that attempt had answers or a verified address. (An
-- entry not created here has no `created_at` below for any of its attempts, so dropping it
-- after `DISTINCT ON` is dropping it before, as V131's join did.)
CREATE OR REPLACE FUNCTION record_batch_answers(p_program uuid, p_request_keys uuid[], p_answers jsonb[], p_verified boolean[])
RETURNS void
LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan
AS $$
BEGIN
  INSERT INTO entry_answers (entry_id, program_id, answers, verified_at_join)
  SELECT first.entry_id, p_program, first.answers, CASE WHEN first.verified THEN first.created_at END
  FROM (
    SELECT DISTINCT ON (x.entry_id) x.entry_id, x.answers, x.verified,
           (SELECT e.created_at FROM entries e
            WHERE e.id = x.entry_id AND e.program_id = p_program AND e.xmin = pg_current_xact_id()::xid) AS created_at
    FROM (SELECT a.ord, a.answers, a.verified,
                 (SELECT r.entry_id FROM signup_receipts r
                  WHERE r.program_id = p_program AND r.request_key = a.request_key
                    AND r.xmin = pg_current_xact_id()::xid) AS entry_id
          FROM unnest(p_request_keys, p_answers, p_verified) WITH ORDINALITY AS a (request_key, answers, verified, ord)
          OFFSET 0) x
    WHERE x.entry_id IS NOT NULL
    ORDER BY x.entry_id, x.ord
  ) AS first
  WHERE first.created_at IS NOT NULL AND (first.answers <> '{}'::jsonb OR first.verified);
END $$;
