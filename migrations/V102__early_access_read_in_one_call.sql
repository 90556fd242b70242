-- Issue 28 (CPU per private read): the private read of SPEC §6.3 as one call, sent as one
-- statement outside any explicit transaction block (its own implicit transaction), so a
-- read is one Bind/Execute/Sync on the wire instead of BEGIN, SET LOCAL, three statements
-- and COMMIT over three round trips.
--
-- The protocol is `db::early_access`'s, unchanged: the workspace and then the program are
-- held FOR SHARE (the global lock order: workspace before program), and then one scoped
-- statement joins content, entry and grant of that program for this user, with the
-- workspace active, access on, the entry active, the grant active and the entry's email
-- among the user's verified emails right now. The function is VOLATILE and PL/pgSQL, so
-- under READ COMMITTED each of its statements reads a fresh snapshot taken after the
-- previous statement's lock was granted: a revoking writer either committed first (the
-- read sees the revocation and answers no row) or waits for this read to end.
--
-- The row locks give the transaction an id, so its commit would wait for a WAL flush;
-- the read wrote nothing worth keeping, so it sets `synchronous_commit` off for its own
-- transaction (transaction-local, as V61 does for its refusals): a crash can only forget
-- that a read happened.
--
-- No row: no such program, the workspace inactive, or any condition failed (the same 404).
CREATE FUNCTION early_access_read(p_slug text, p_user text, p_emails text[])
RETURNS TABLE (revision bigint, body text, title text)
LANGUAGE plpgsql AS $$
DECLARE
  v_ws_active boolean;
BEGIN
  PERFORM set_config('synchronous_commit', 'off', true);
  SELECT w.active INTO v_ws_active FROM programs p JOIN workspaces w ON w.id = p.workspace_id
    WHERE p.public_slug = p_slug FOR SHARE OF w;
  IF v_ws_active IS NOT TRUE THEN
    RETURN;
  END IF;
  PERFORM 1 FROM programs p WHERE p.public_slug = p_slug FOR SHARE;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  RETURN QUERY SELECT c.revision, c.body, p.title FROM programs p
    JOIN workspaces w ON w.id = p.workspace_id
    JOIN entries e ON e.program_id = p.id
    JOIN grants g ON g.program_id = p.id AND g.entry_id = e.id
    JOIN early_access_content c ON c.program_id = p.id
    WHERE p.public_slug = p_slug AND w.active AND p.access_enabled
      AND e.state = 'active' AND g.active AND g.clerk_user_id = p_user AND e.email_key = ANY(p_emails);
END $$;
