-- Issue 28: group admission. Signups for one program that arrive together at one API
-- instance are admitted together (`api/src/group.rs`): one transaction, one program lock,
-- one WAL flush for the whole batch. `admit_signups` takes the batch as parallel arrays
-- (element i is the i-th request in arrival order) and answers one row per element, in
-- that order, with what `admit_signup` (V61) would have answered had the requests come
-- one after another: the decisions are V61's, in V61's order, taken for each element on
-- what the database held after the locks plus what the earlier elements of the batch did.
-- So within a batch a later element sees an earlier one's receipt (the same key: `receipt`,
-- with the earlier binding, for the server to compare), its spent proof of work
-- (`challenge_failed`), its place in the queue and the hour (caps in arrival order) and
-- its entry (the same email: `duplicate`, pointing at it).
--
-- Work under the lock shrinks with the batch: the reads are one statement each for the
-- whole batch (receipts, spent solutions, known emails, mailbox twins), the writes one
-- statement each (solutions, entries, the queue counter, the hour bucket(s), receipts,
-- events, outbox events, deliveries). The audit chain's hashes are computed here, once per
-- batch, in order, from the chain head read under the program lock; the events go in with
-- their chain columns filled, and the row triggers of V50 (chain) and V20/V83 (outbox)
-- skip exactly those rows (the transaction-local setting `vestibule.prechained` names the
-- program while that one INSERT runs). What each trigger would have written is written
-- here instead, for the whole statement: the same hash definition (`audit_canonical`,
-- version 1, so `vestibule verify` recomputes the same bytes), the same `entry.created`
-- payload and deliveries. The unique (program_id, chain_seq) index still refuses a fork.
--
-- Times: the clock is read once, after the locks; the k-th new row of the batch (entry,
-- receipt, event, bucket) carries that instant plus k−1 microseconds, so the queue's
-- (created_at, id) order is the arrival order and every row of one admission carries one
-- instant, as in V61. A batch is at most a few hundred requests (the server bounds it), so
-- its rows span well under a millisecond, less than its own commit takes.
--
-- Adding a field to the entry (issue 31's answers, say): one more array parameter, read
-- as p_x[i], and one more column in the entries INSERT … SELECT below.
CREATE FUNCTION admit_signups(
  p_workspace uuid, p_program uuid, p_request_keys uuid[], p_emails text[], p_notice_versions integer[],
  p_permissions boolean[], p_bindings bytea[], p_source_refs text[], p_disposable_domains boolean[],
  p_mailbox_keys text[], p_pow_signatures bytea[], p_pow_expires_at timestamptz[])
RETURNS TABLE (ord integer, outcome text, stored_binding bytea)
LANGUAGE plpgsql AS $$
DECLARE
  n integer := cardinality(p_request_keys);
  v_ws_active boolean;
  v_prog record;
  -- What the database held after the locks.
  db_keys uuid[];
  db_bindings bytea[];
  db_spent bytea[];
  db_emails text[];
  db_email_entries uuid[];
  db_mailboxes text[];
  db_mailbox_entries uuid[];
  -- Per element: the previous element with the same key, solution, email, mailbox.
  prev_key integer[];
  prev_pow integer[];
  prev_email integer[];
  prev_mailbox integer[];
  -- Per element: the outcome, the binding answered, the entry, its time (new rows only).
  outcomes text[] := array_fill(NULL::text, ARRAY[n]);
  replied bytea[] := array_fill(NULL::bytea, ARRAY[n]);
  entry_of uuid[] := array_fill(NULL::uuid, ARRAY[n]);
  twin_of uuid[] := array_fill(NULL::uuid, ARRAY[n]);
  at_of timestamptz[] := array_fill(NULL::timestamptz, ARRAY[n]);
  new_entry boolean[] := array_fill(false, ARRAY[n]);
  v_at timestamptz;
  v_row_at timestamptz;
  v_bucket timestamptz;
  v_row_bucket timestamptz;
  v_hour_count integer;
  v_admitted integer := 0;
  v_written integer := 0;
  j integer;
  -- The audit chain: head, then each new event's id, place and hashes.
  head record;
  ev_ids bigint[] := ARRAY[]::bigint[];
  ev_entries uuid[] := ARRAY[]::uuid[];
  ev_at timestamptz[] := ARRAY[]::timestamptz[];
  ev_details jsonb[] := ARRAY[]::jsonb[];
  ev_seqs bigint[] := ARRAY[]::bigint[];
  ev_prev_ids bigint[] := ARRAY[]::bigint[];
  ev_prev_hashes bytea[] := ARRAY[]::bytea[];
  ev_hashes bytea[] := ARRAY[]::bytea[];
  v_prev_id bigint;
  v_prev_hash bytea;
  v_seq bigint;
  v_details jsonb;
BEGIN
  IF n IS NULL OR n = 0 THEN
    RETURN;
  END IF;
  SELECT w.active INTO v_ws_active FROM workspaces w WHERE w.id = p_workspace FOR KEY SHARE;
  SELECT p.id, p.signup_open, p.current_notice_id, p.current_notice_version, p.queue_count, p.queue_cap,
         p.hourly_cap
    INTO v_prog FROM programs p WHERE p.id = p_program AND p.workspace_id = p_workspace FOR UPDATE;
  IF NOT FOUND OR v_ws_active IS NOT TRUE OR v_prog.current_notice_id IS NULL THEN
    PERFORM set_config('synchronous_commit', 'off', true);
    RETURN QUERY SELECT i::integer, 'not_found'::text, NULL::bytea FROM generate_series(1, n) i;
    RETURN;
  END IF;

  -- The batch's reads, one statement each, after the locks.
  SELECT coalesce(array_agg(r.request_key), '{}'), coalesce(array_agg(r.binding_hmac), '{}')
    INTO db_keys, db_bindings
    FROM signup_receipts r WHERE r.program_id = p_program AND r.request_key = ANY (p_request_keys);
  SELECT coalesce(array_agg(s.signature), '{}') INTO db_spent
    FROM pow_spent s WHERE s.signature = ANY (p_pow_signatures);
  SELECT coalesce(array_agg(e.email_key), '{}'), coalesce(array_agg(e.id), '{}') INTO db_emails, db_email_entries
    FROM entries e WHERE e.program_id = p_program AND e.email_key = ANY (p_emails);
  SELECT coalesce(array_agg(d.mailbox_key), '{}'), coalesce(array_agg(d.id), '{}') INTO db_mailboxes, db_mailbox_entries
    FROM (SELECT DISTINCT ON (m.mailbox_key) m.mailbox_key, m.id FROM entries m
          WHERE m.program_id = p_program AND m.mailbox_key = ANY (p_mailbox_keys)
          ORDER BY m.mailbox_key, m.created_at, m.id) d;

  -- Earlier elements with the same value, as chains (lag within each value), so that
  -- each element looks only at its own kind in the batch, not at every earlier one.
  IF n > 1 THEN
    SELECT array_agg(x.prev ORDER BY x.o) INTO prev_key FROM (SELECT u.o::integer,
      lag(u.o::integer) OVER (PARTITION BY u.v ORDER BY u.o) AS prev FROM unnest(p_request_keys) WITH ORDINALITY u(v, o)) x;
    SELECT array_agg(x.prev ORDER BY x.o) INTO prev_pow FROM (SELECT u.o::integer,
      lag(u.o::integer) OVER (PARTITION BY u.v ORDER BY u.o) AS prev FROM unnest(p_pow_signatures) WITH ORDINALITY u(v, o)) x;
    SELECT array_agg(x.prev ORDER BY x.o) INTO prev_email FROM (SELECT u.o::integer,
      lag(u.o::integer) OVER (PARTITION BY u.v ORDER BY u.o) AS prev FROM unnest(p_emails) WITH ORDINALITY u(v, o)) x;
    SELECT array_agg(x.prev ORDER BY x.o) INTO prev_mailbox FROM (SELECT u.o::integer,
      lag(u.o::integer) OVER (PARTITION BY u.v ORDER BY u.o) AS prev FROM unnest(p_mailbox_keys) WITH ORDINALITY u(v, o)) x;
  ELSE
    -- A lone signup has no earlier element.
    prev_key := ARRAY[NULL::integer];
    prev_pow := prev_key;
    prev_email := prev_key;
    prev_mailbox := prev_key;
  END IF;

  v_at := clock_timestamp();
  v_bucket := date_trunc('hour', v_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC';
  SELECT coalesce(max(h.admitted_count), 0) INTO v_hour_count FROM intake_hours h
    WHERE h.program_id = p_program AND h.bucket_start = v_bucket;

  -- The decisions, element by element in arrival order (V61's order), in memory.
  FOR i IN 1 .. n LOOP
    -- The request key: committed before, or by an earlier element of this batch.
    j := array_position(db_keys, p_request_keys[i]);
    IF j IS NOT NULL THEN
      outcomes[i] := 'receipt';
      replied[i] := db_bindings[j];
      CONTINUE;
    END IF;
    j := prev_key[i];
    WHILE j IS NOT NULL AND outcomes[j] NOT IN ('admitted', 'duplicate') LOOP
      j := prev_key[j];
    END LOOP;
    IF j IS NOT NULL THEN
      outcomes[i] := 'receipt';
      replied[i] := p_bindings[j];
      CONTINUE;
    END IF;
    -- A proof of work spent before, or by an earlier element.
    IF p_pow_signatures[i] IS NOT NULL THEN
      IF array_position(db_spent, p_pow_signatures[i]) IS NOT NULL THEN
        outcomes[i] := 'challenge_failed';
        CONTINUE;
      END IF;
      j := prev_pow[i];
      WHILE j IS NOT NULL AND outcomes[j] NOT IN ('admitted', 'duplicate') LOOP
        j := prev_pow[j];
      END LOOP;
      IF j IS NOT NULL THEN
        outcomes[i] := 'challenge_failed';
        CONTINUE;
      END IF;
    END IF;
    outcomes[i] := CASE
      WHEN NOT v_prog.signup_open THEN 'closed'
      WHEN v_prog.current_notice_version IS DISTINCT FROM p_notice_versions[i] THEN 'notice_outdated'
      WHEN p_permissions[i] IS NOT TRUE THEN 'permission_required'
    END;
    IF outcomes[i] IS NOT NULL THEN
      CONTINUE;
    END IF;
    -- This element's instant, should it write; the caps at that instant.
    v_row_at := v_at + make_interval(secs => v_written / 1000000.0);
    v_row_bucket := date_trunc('hour', v_row_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC';
    IF v_row_bucket <> v_bucket THEN
      -- The batch crossed an hour: the new hour's bucket as the database holds it.
      v_bucket := v_row_bucket;
      SELECT coalesce(max(h.admitted_count), 0) INTO v_hour_count FROM intake_hours h
        WHERE h.program_id = p_program AND h.bucket_start = v_bucket;
    END IF;
    IF v_prog.queue_count + v_admitted >= v_prog.queue_cap OR v_hour_count >= v_prog.hourly_cap THEN
      outcomes[i] := 'capped';
      CONTINUE;
    END IF;
    at_of[i] := v_row_at;
    v_written := v_written + 1;
    -- The email: known before, or admitted by an earlier element.
    j := array_position(db_emails, p_emails[i]);
    IF j IS NOT NULL THEN
      outcomes[i] := 'duplicate';
      entry_of[i] := db_email_entries[j];
      CONTINUE;
    END IF;
    j := prev_email[i];
    WHILE j IS NOT NULL AND NOT new_entry[j] LOOP
      j := prev_email[j];
    END LOOP;
    IF j IS NOT NULL THEN
      outcomes[i] := 'duplicate';
      entry_of[i] := entry_of[j];
      CONTINUE;
    END IF;
    outcomes[i] := 'admitted';
    new_entry[i] := true;
    entry_of[i] := gen_random_uuid();
    v_admitted := v_admitted + 1;
    v_hour_count := v_hour_count + 1;
    -- The program's earliest entry of the same mailbox: one from before, else an earlier
    -- new one of this batch.
    IF p_mailbox_keys[i] IS NOT NULL THEN
      j := array_position(db_mailboxes, p_mailbox_keys[i]);
      IF j IS NOT NULL THEN
        twin_of[i] := db_mailbox_entries[j];
      ELSE
        -- The earliest: walk the chain of earlier ones to its start.
        j := prev_mailbox[i];
        WHILE j IS NOT NULL LOOP
          IF new_entry[j] THEN
            twin_of[i] := entry_of[j];
          END IF;
          j := prev_mailbox[j];
        END LOOP;
      END IF;
    END IF;
  END LOOP;

  IF v_written = 0 THEN
    -- Nothing worth a disk flush (as V61 for an answer that writes nothing).
    PERFORM set_config('synchronous_commit', 'off', true);
    RETURN QUERY SELECT i::integer, outcomes[i], replied[i] FROM generate_series(1, n) i;
    RETURN;
  END IF;

  -- The writes, one statement each for the whole batch.
  INSERT INTO pow_spent (signature, expires_at)
    SELECT p_pow_signatures[i], coalesce(p_pow_expires_at[i], at_of[i]) FROM generate_series(1, n) i
    WHERE at_of[i] IS NOT NULL AND p_pow_signatures[i] IS NOT NULL;
  IF v_admitted > 0 THEN
    INSERT INTO entries (id, program_id, email_key, notice_id, permission_at, state, created_at, updated_at,
                         source_ref, disposable_domain, mailbox_key, duplicate_of)
      SELECT entry_of[i], p_program, p_emails[i], v_prog.current_notice_id, at_of[i], 'waiting', at_of[i], at_of[i],
             p_source_refs[i], p_disposable_domains[i], p_mailbox_keys[i], twin_of[i]
      FROM generate_series(1, n) i WHERE new_entry[i] ORDER BY i;
    UPDATE programs SET queue_count = queue_count + v_admitted
      WHERE id = p_program AND queue_count + v_admitted <= queue_cap;
    IF NOT FOUND THEN
      RAISE EXCEPTION 'queue counter guard missed' USING ERRCODE = 'serialization_failure';
    END IF;
    -- Each hour the batch's new entries fall in (one, unless it crossed an hour).
    FOR v_row_bucket, j IN
      SELECT date_trunc('hour', at_of[i] AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', count(*)::integer
      FROM generate_series(1, n) i WHERE new_entry[i] GROUP BY 1
    LOOP
      INSERT INTO intake_hours (program_id, bucket_start, admitted_count) VALUES (p_program, v_row_bucket, j)
        ON CONFLICT (program_id, bucket_start) DO UPDATE SET admitted_count = intake_hours.admitted_count + j
        WHERE intake_hours.admitted_count + j <= v_prog.hourly_cap;
      IF NOT FOUND THEN
        RAISE EXCEPTION 'hour counter guard missed' USING ERRCODE = 'serialization_failure';
      END IF;
    END LOOP;
  END IF;
  INSERT INTO signup_receipts (program_id, request_key, binding_hmac, entry_id, accepted_at)
    SELECT p_program, p_request_keys[i], p_bindings[i], entry_of[i], at_of[i] FROM generate_series(1, n) i
    WHERE at_of[i] IS NOT NULL ORDER BY i;

  IF v_admitted > 0 THEN
    -- The chain: its head under the program lock, then each event in arrival order. Ids
    -- drawn after the lock are above every committed event's (V50's id-order rule).
    SELECT a.id, a.chain_seq, a.hash INTO head FROM audit_events a WHERE a.program_id = p_program
      ORDER BY a.id DESC LIMIT 1;
    v_prev_id := head.id;
    v_prev_hash := coalesce(head.hash, decode(repeat('00', 32), 'hex'));
    v_seq := coalesce(head.chain_seq, 0);
    FOR i IN 1 .. n LOOP
      CONTINUE WHEN NOT new_entry[i];
      v_seq := v_seq + 1;
      v_details := jsonb_build_object('noticeVersion', p_notice_versions[i]);
      ev_ids := ev_ids || nextval(pg_get_serial_sequence('audit_events', 'id'));
      ev_entries := ev_entries || entry_of[i];
      ev_at := ev_at || at_of[i];
      ev_details := ev_details || v_details;
      ev_seqs := ev_seqs || v_seq;
      ev_prev_ids := ev_prev_ids || v_prev_id;
      ev_prev_hashes := ev_prev_hashes || v_prev_hash;
      v_prev_hash := sha256(v_prev_hash || audit_canonical(ev_ids[cardinality(ev_ids)], p_program, v_seq, v_prev_id,
        entry_of[i], 'public', NULL, 'signup', at_of[i], v_details));
      ev_hashes := ev_hashes || v_prev_hash;
      v_prev_id := ev_ids[cardinality(ev_ids)];
    END LOOP;
    PERFORM set_config('vestibule.prechained', p_program::text, true);
    INSERT INTO audit_events (id, program_id, entry_id, actor_kind, actor_staff_id, event_type, event_at, details,
                              chain_seq, prev_id, prev_hash, hash)
      OVERRIDING SYSTEM VALUE
      SELECT ev_ids[k], p_program, ev_entries[k], 'public', NULL, 'signup', ev_at[k], ev_details[k],
             ev_seqs[k], ev_prev_ids[k], ev_prev_hashes[k], ev_hashes[k]
      FROM generate_series(1, cardinality(ev_ids)) k ORDER BY k;
    PERFORM set_config('vestibule.prechained', '', true);
    -- The outbox, as `outbox_enqueue` (V83, and V123 of issue 30, which every database
    -- this function runs in has) would have enqueued each `signup` event: `entry.created`
    -- with the entry's state, when some endpoint of the workspace subscribed to it or an
    -- internal subscriber wants it; one delivery per target, a disabled endpoint's
    -- `skipped` (recorded for its recovery, never claimed).
    IF EXISTS (SELECT 1 FROM webhook_endpoints w WHERE w.workspace_id = p_workspace
                 AND 'entry.created' = ANY (w.event_types) AND (w.program_ids IS NULL OR p_program = ANY (w.program_ids)))
       OR EXISTS (SELECT 1 FROM outbox_internal_subscriptions s WHERE s.event_type = 'entry.created') THEN
      WITH ev AS (
        INSERT INTO outbox_events (audit_event_id, workspace_id, program_id, event_type, payload, created_at)
        SELECT ev_ids[k], p_workspace, p_program, 'entry.created',
               jsonb_build_object('type', 'entry.created',
                 'timestamp', to_char(ev_at[k] AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
                 'data', jsonb_strip_nulls(jsonb_build_object('workspaceId', p_workspace, 'programId', p_program,
                   'entryId', ev_entries[k], 'state', 'waiting'))),
               ev_at[k]
        FROM generate_series(1, cardinality(ev_ids)) k ORDER BY k
        RETURNING id, audit_event_id, created_at)
      INSERT INTO outbox_deliveries (event_id, target_kind, endpoint_id, state, next_attempt_at, created_at)
      SELECT t.event_id, t.target_kind, t.endpoint_id, t.state, t.at, t.at FROM (
        SELECT ev.id AS event_id, ev.audit_event_id, 0 AS part, 'webhook' AS target_kind, w.id AS endpoint_id,
               CASE WHEN w.enabled THEN 'pending' ELSE 'skipped' END AS state, ev.created_at AS at
        FROM ev JOIN webhook_endpoints w ON w.workspace_id = p_workspace
          AND 'entry.created' = ANY (w.event_types) AND (w.program_ids IS NULL OR p_program = ANY (w.program_ids))
        UNION ALL
        SELECT ev.id, ev.audit_event_id, 1, s.target_kind, NULL, 'pending', ev.created_at
        FROM ev JOIN outbox_internal_subscriptions s ON s.event_type = 'entry.created') t
      ORDER BY t.audit_event_id, t.part;
    END IF;
  END IF;
  RETURN QUERY SELECT i::integer, outcomes[i], replied[i] FROM generate_series(1, n) i;
END $$;

-- The row triggers skip the events `admit_signups` chained and enqueued itself: only
-- rows that carry their hash, of the program the setting names, while that INSERT runs.
-- Every other writer's event is chained and enqueued by the triggers as before.
DROP TRIGGER audit_chain ON audit_events;
CREATE TRIGGER audit_chain BEFORE INSERT ON audit_events FOR EACH ROW
  WHEN (NEW.hash IS NULL OR current_setting('vestibule.prechained', true) IS DISTINCT FROM NEW.program_id::text)
  EXECUTE FUNCTION audit_chain_append();
DROP TRIGGER audit_outbox ON audit_events;
CREATE TRIGGER audit_outbox AFTER INSERT ON audit_events FOR EACH ROW
  WHEN (current_setting('vestibule.prechained', true) IS DISTINCT FROM NEW.program_id::text)
  EXECUTE FUNCTION outbox_enqueue();
