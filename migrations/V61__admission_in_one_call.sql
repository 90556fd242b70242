-- Issue 18: the signup admission as one server-side call (SPEC §5, §6.2), so the
-- program lock is held for the admission's own work and the commit, not for client
-- round trips: `api/src/db/signups.rs` sends BEGIN, `SELECT * FROM admit_signup(…)` and
-- COMMIT as one pipeline. Inside PL/pgSQL every statement takes a fresh READ COMMITTED
-- snapshot, so "lock, then read fresh" holds as it did statement by statement.
--
-- The order of decisions is the contract's (usecases/admission.rs says it once more):
-- workspace FOR KEY SHARE → program FOR UPDATE; a program that is not public (inactive
-- workspace, no notice) is the unknown slug's not_found; the request key's receipt (the stored
-- binding goes back to the server, which compares it in constant time: same → replay,
-- other → 409); a proof of work already spent (issue 15, V42: the server verified it
-- before and passes its signature; it is recorded with the admission's writes, so a
-- refused admission leaves no row); closed / outdated notice / no choice; queue and hour caps (nothing
-- written); the email (known → a receipt only); else the entry (with the flags the
-- server computed before the transaction, `api/src/screening`, and the link to the
-- program's earliest entry of the same mailbox, read here under the lock), the queue
-- counter, the hour bucket, the receipt and the `signup` event. The clock is read once,
-- after the locks and the receipt.
--
-- Why a function and not more pipelining from the server: what every audit append must
-- also do lives in the database, as triggers on audit_events (the hash chain, the
-- outbox), so a plain INSERT here gets it and nothing is duplicated. Flags and the
-- binding HMAC stay in Rust and come in as parameters.
--
-- A counter guard that misses means something wrote around the program lock; the
-- function then raises serialization_failure and the server runs the admission again,
-- deciding on what it reads then (as it does on a unique violation).
--
-- An answer that writes nothing (everything but `admitted` and `duplicate`) commits
-- without waiting for the WAL flush: the row locks gave the transaction an id, but there
-- is nothing in it worth a disk flush.
CREATE FUNCTION admit_signup(
  p_workspace uuid, p_program uuid, p_request_key uuid, p_email text, p_notice_version integer,
  p_permission boolean, p_binding bytea, p_source_ref text, p_disposable_domain boolean, p_mailbox_key text,
  p_pow_signature bytea, p_pow_expires_at timestamptz)
RETURNS TABLE (outcome text, stored_binding bytea)
LANGUAGE plpgsql AS $$
DECLARE
  v_ws_active boolean;
  v_prog record;
  v_receipt bytea;
  v_at timestamptz;
  v_bucket timestamptz;
  v_hour_count integer;
  v_known uuid;
  v_entry uuid;
BEGIN
  SELECT w.active INTO v_ws_active FROM workspaces w WHERE w.id = p_workspace FOR KEY SHARE;
  SELECT p.id, p.signup_open, p.current_notice_id, p.current_notice_version, p.queue_count, p.queue_cap,
         p.hourly_cap
    INTO v_prog FROM programs p WHERE p.id = p_program AND p.workspace_id = p_workspace FOR UPDATE;
  -- Not public (inactive workspace, no notice; issue 12 item 13): the unknown slug's 404,
  -- before the receipt, as the public GET answers.
  IF NOT FOUND OR v_ws_active IS NOT TRUE OR v_prog.current_notice_id IS NULL THEN
    PERFORM set_config('synchronous_commit', 'off', true);
    RETURN QUERY SELECT 'not_found'::text, NULL::bytea;
    RETURN;
  END IF;
  SELECT r.binding_hmac INTO v_receipt FROM signup_receipts r
    WHERE r.program_id = p_program AND r.request_key = p_request_key;
  IF FOUND THEN
    PERFORM set_config('synchronous_commit', 'off', true);
    RETURN QUERY SELECT 'receipt'::text, v_receipt;
    RETURN;
  END IF;
  -- A solution used before (V42's pow_spent) is refused; this one is recorded below,
  -- with the admission's writes, so a refused admission leaves no row.
  IF p_pow_signature IS NOT NULL AND EXISTS (SELECT 1 FROM pow_spent s WHERE s.signature = p_pow_signature) THEN
    PERFORM set_config('synchronous_commit', 'off', true);
    RETURN QUERY SELECT 'challenge_failed'::text, NULL::bytea;
    RETURN;
  END IF;
  v_at := clock_timestamp();
  v_bucket := date_trunc('hour', v_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC';
  outcome := CASE
    WHEN NOT v_prog.signup_open THEN 'closed'
    WHEN v_prog.current_notice_version IS DISTINCT FROM p_notice_version THEN 'notice_outdated'
    WHEN NOT p_permission THEN 'permission_required'
  END;
  IF outcome IS NULL THEN
    SELECT coalesce(max(h.admitted_count), 0) INTO v_hour_count FROM intake_hours h
      WHERE h.program_id = p_program AND h.bucket_start = v_bucket;
    IF v_prog.queue_count >= v_prog.queue_cap OR v_hour_count >= v_prog.hourly_cap THEN
      outcome := 'capped';
    END IF;
  END IF;
  IF outcome IS NOT NULL THEN
    PERFORM set_config('synchronous_commit', 'off', true);
    RETURN QUERY SELECT outcome, NULL::bytea;
    RETURN;
  END IF;
  IF p_pow_signature IS NOT NULL THEN
    INSERT INTO pow_spent (signature, expires_at) VALUES (p_pow_signature, coalesce(p_pow_expires_at, v_at));
  END IF;
  SELECT e.id INTO v_known FROM entries e WHERE e.program_id = p_program AND e.email_key = p_email;
  IF FOUND THEN
    INSERT INTO signup_receipts (program_id, request_key, binding_hmac, entry_id, accepted_at)
      VALUES (p_program, p_request_key, p_binding, v_known, v_at);
    RETURN QUERY SELECT 'duplicate'::text, NULL::bytea;
    RETURN;
  END IF;
  v_entry := gen_random_uuid();
  INSERT INTO entries (id, program_id, email_key, notice_id, permission_at, state, created_at, updated_at,
                       source_ref, disposable_domain, mailbox_key, duplicate_of)
    VALUES (v_entry, p_program, p_email, v_prog.current_notice_id, v_at, 'waiting', v_at, v_at,
            p_source_ref, p_disposable_domain, p_mailbox_key,
            (SELECT d.id FROM entries d WHERE d.program_id = p_program AND d.mailbox_key = p_mailbox_key
             ORDER BY d.created_at, d.id LIMIT 1));
  UPDATE programs SET queue_count = queue_count + 1 WHERE id = p_program AND queue_count < queue_cap;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'queue counter guard missed' USING ERRCODE = 'serialization_failure';
  END IF;
  INSERT INTO intake_hours (program_id, bucket_start, admitted_count) VALUES (p_program, v_bucket, 1)
    ON CONFLICT (program_id, bucket_start) DO UPDATE SET admitted_count = intake_hours.admitted_count + 1
    WHERE intake_hours.admitted_count < v_prog.hourly_cap;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'hour counter guard missed' USING ERRCODE = 'serialization_failure';
  END IF;
  INSERT INTO signup_receipts (program_id, request_key, binding_hmac, entry_id, accepted_at)
    VALUES (p_program, p_request_key, p_binding, v_entry, v_at);
  INSERT INTO audit_events (program_id, entry_id, actor_kind, actor_staff_id, event_type, event_at, details)
    VALUES (p_program, v_entry, 'public', NULL, 'signup', v_at, jsonb_build_object('noticeVersion', p_notice_version));
  RETURN QUERY SELECT 'admitted'::text, NULL::bytea;
END $$;
