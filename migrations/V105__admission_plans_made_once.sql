-- Issue 28: a lone signup's admission re-planned ten of `admit_signups`' statements on
-- every call. PL/pgSQL caches a plan per statement, but PostgreSQL's plan cache keeps
-- making *custom* plans (25–40 µs each, under the program lock) for a statement whose
-- generic plan looks dearer than the custom ones: every `= ANY (array)` lookup (a generic
-- plan assumes ten elements) and every `… FROM generate_series(1, n)` write (it assumes a
-- thousand rows), against the batch of one a lone signup is. Forcing generic plans for the
-- function (below) removes that — but a generic plan must then be safe whatever the
-- statistics say when it is made, since it is kept for the session:
--
-- * The four batch lookups (receipts, spent solutions, known emails, mailbox twins) were
--   `… WHERE program_id = p AND key = ANY (keys)`: made on an empty, never-analyzed table
--   (a new deployment's first minute), the generic plan scans the program's entries with
--   the key as a filter — O(program) under the program lock. Now each element is looked up
--   by its own key in a scalar subquery: an equality on the whole unique key (or the
--   mailbox index's two leading columns, LIMIT 1), which every plan serves from the index.
-- * The chain head was `ORDER BY id DESC LIMIT 1` among the program's events: with
--   statistics in which one program holds most events, a generic plan walks the primary
--   key backwards filtering by program — every newer event of other programs. It is now
--   `ORDER BY chain_seq DESC`, the same row (chain_seq grows with id within a program,
--   V50), which only the (program_id, chain_seq) index can give in order.
--
-- Decisions, writes, hashes and answers are V100's, unchanged (the body below is V100's
-- but for those reads). The generic plans of every statement, on an empty never-analyzed
-- schema and on a warm one, are in BENCHMARKS.md (issue 28, V105).
CREATE OR REPLACE FUNCTION admit_signups(
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

  -- The batch's reads, one statement each, after the locks. Each element is looked up by
  -- its own key (a correlated scalar subquery per element, which the planner never hashes
  -- or joins: an equality on a unique key or an index's leading columns), so the plan made
  -- once per session is as good as one made for this call (see the header).
  -- (`OFFSET 0` keeps each subquery's answer computed once: without it the outer filter
  -- is pushed down and the lookup runs twice.)
  SELECT coalesce(array_agg(x.k), '{}'), coalesce(array_agg(x.b), '{}') INTO db_keys, db_bindings
    FROM (SELECT u.k, (SELECT r.binding_hmac FROM signup_receipts r
                       WHERE r.program_id = p_program AND r.request_key = u.k) AS b
          FROM unnest(p_request_keys) u(k) OFFSET 0) x
    WHERE x.b IS NOT NULL;
  SELECT coalesce(array_agg(x.k), '{}') INTO db_spent
    FROM (SELECT u.k, (SELECT true FROM pow_spent s WHERE s.signature = u.k) AS spent
          FROM unnest(p_pow_signatures) u(k) WHERE u.k IS NOT NULL OFFSET 0) x
    WHERE x.spent;
  SELECT coalesce(array_agg(x.k), '{}'), coalesce(array_agg(x.id), '{}') INTO db_emails, db_email_entries
    FROM (SELECT u.k, (SELECT e.id FROM entries e WHERE e.program_id = p_program AND e.email_key = u.k) AS id
          FROM unnest(p_emails) u(k) OFFSET 0) x
    WHERE x.id IS NOT NULL;
  SELECT coalesce(array_agg(x.k), '{}'), coalesce(array_agg(x.id), '{}') INTO db_mailboxes, db_mailbox_entries
    FROM (SELECT u.k, (SELECT m.id FROM entries m WHERE m.program_id = p_program AND m.mailbox_key = u.k
                       ORDER BY m.created_at, m.id LIMIT 1) AS id
          FROM (SELECT DISTINCT v FROM unnest(p_mailbox_keys) v WHERE v IS NOT NULL) u(k) OFFSET 0) x
    WHERE x.id IS NOT NULL;

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
    -- (By `chain_seq`, the same row as by id — V50's id-order rule — because only the
    -- (program_id, chain_seq) index gives that order: no plan walks other programs' events.)
    SELECT a.id, a.chain_seq, a.hash INTO head FROM audit_events a WHERE a.program_id = p_program
      ORDER BY a.chain_seq DESC LIMIT 1;
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

-- Generic plans for every statement of the function (its own and, while it runs, the
-- foreign-key checks and statement triggers it fires), made once per session.
ALTER FUNCTION admit_signups(uuid, uuid, uuid[], text[], integer[], boolean[], bytea[], text[], boolean[], text[],
  bytea[], timestamptz[]) SET plan_cache_mode = force_generic_plan;
