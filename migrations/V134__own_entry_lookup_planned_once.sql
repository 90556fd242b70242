-- Issue 28 (numbered after V133, which is applied everywhere already; refinery applies in
-- ascending order). The caller's own entry in a locked program — a cohort use, whose caller
-- has no entry yet, and a withdrawal both look it up under the program lock — was a
-- prepared statement, `program_id = $1 AND email_key = ANY($2) ORDER BY created_at, id
-- LIMIT 1 FOR UPDATE`. PostgreSQL plans such a statement with the program's id in it
-- (custom plans), and for a program newer than the table's last analyze the statistics
-- say it has no entries: the plan walks the program's entries in queue order with the
-- address as a filter, and keeps doing so as the program grows until the next analyze
-- (autovacuum's comes after a tenth of the whole table has changed). A cohort code handed
-- to a crowd made exactly that: ~735 pages read per use in the bench, every entry of the
-- program, under its lock.
--
-- Now the lookup is a PL/pgSQL function whose plans are generic and made once per session
-- (as V105 does for `admit_signups`): a generic plan does not know which program, so it
-- estimates a program's share of the table, not "none", and each address is looked up on
-- its own by the whole (program, address) key in a scalar subquery — a plan that cannot
-- walk a program whatever the statistics. The earliest of those few entries is then
-- locked by its id. Same row, same lock, same answer as before.
CREATE FUNCTION lock_own_entry(p_program uuid, p_emails text[])
RETURNS TABLE (entry_id uuid, entry_state text, entry_email text)
LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan
AS $$
BEGIN
  RETURN QUERY
  SELECT e.id, e.state, e.email_key FROM entries e
  WHERE e.id = (
    SELECT x.id FROM (
      SELECT (SELECT o.id FROM entries o WHERE o.program_id = p_program AND o.email_key = k.email) AS id,
             (SELECT o.created_at FROM entries o WHERE o.program_id = p_program AND o.email_key = k.email) AS at
      FROM unnest(p_emails) AS k(email) OFFSET 0) x
    WHERE x.id IS NOT NULL ORDER BY x.at, x.id LIMIT 1)
  FOR UPDATE OF e;
END $$;
