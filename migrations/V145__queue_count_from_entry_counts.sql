-- Issue 28: a program's queue count is its entries' counts (V101's `program_entry_counts`,
-- kept by the writers' own statements), no longer a column of `programs` as well.
--
-- `programs.queue_count` counted the same thing twice: every non-withdrawn entry, which
-- `program_entry_counts` already holds per state, in the same transactions. Keeping the
-- column cost every admission batch an UPDATE of each program it admitted into — a wide
-- row, whose fourteen CHECK constraints PostgreSQL reads from their stored text and checks
-- on every update (`ExecConstraints`, `stringToNode`) — and every withdrawal and cohort
-- redemption the same. Measured with pgbench (one client, `synchronous_commit` off, fresh
-- copies of one template, interleaved): a lone admission 0.833 → 0.761 ms, a batch of four
-- 1.32 → 1.28 ms (BENCHMARKS.md, 2026-12-05).
--
-- `admit_signups` reads each program's count in the statement it already ran after the
-- locks for the hour's count (a fresh snapshot, as every statement of the function after
-- the locks: the counts of every batch that held the lock before are in it), and decides
-- the queue cap on it as before; the program read and the dashboard show the same sum.
-- The counter's guard (`queue_count + n <= queue_cap` in the UPDATE) goes with the UPDATE:
-- the cap is decided under the program lock on counts read after it, which is what the
-- guard re-checked. V61's single `admit_signup`, unused since V100, read the column; it
-- is dropped.

CREATE OR REPLACE FUNCTION admit_signups(
  p_workspace uuid, p_programs uuid[], p_request_keys uuid[], p_emails text[], p_notice_versions integer[],
  p_permissions boolean[], p_bindings bytea[], p_source_refs text[], p_disposable_domains boolean[],
  p_mailbox_keys text[], p_pow_signatures bytea[], p_pow_expires_at timestamptz[])
RETURNS TABLE (ord integer, outcome text, stored_binding bytea)
LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan
SET enable_seqscan = off
SET jit = off
AS $$
DECLARE
  n integer := cardinality(p_request_keys);
  v_ws_active boolean;
  v_prog record;
  -- The batch's programs, distinct and by id (the lock order), and per element the place
  -- of its program among them.
  progs uuid[];
  np integer;
  pg_of integer[];
  -- Per program: what the database held after its lock, then what the batch did.
  pr_found boolean[];
  pr_open boolean[];
  pr_notice_id uuid[];
  pr_notice_version integer[];
  pr_queue integer[];
  pr_queue_cap integer[];
  pr_hourly_cap integer[];
  pr_hour integer[];
  pr_admitted integer[];
  any_found boolean := false;
  -- Per element: what the database held after the locks (NULL: nothing).
  db_binding bytea[];
  db_spent boolean[];
  db_email_entry uuid[];
  db_mailbox_entry uuid[];
  -- Per element: the previous element with the same key, solution, email, mailbox (of the
  -- same program, except the solution, which is spent once for all programs).
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
  v_admitted integer := 0;
  v_written integer := 0;
  v_rows integer;
  v_expected integer;
  upd_ids uuid[] := ARRAY[]::uuid[];
  -- Per program, the hour bucket of its last new entry (the batch's instants only grow).
  pr_last_bucket timestamptz[];
  v_seq regclass;
  j integer;
  k integer;
  -- The audit chains: per program its head, then each new event's id, place and hashes.
  hd_ids bigint[];
  hd_seqs bigint[];
  hd_hashes bytea[];
  ev_ids bigint[] := ARRAY[]::bigint[];
  ev_programs uuid[] := ARRAY[]::uuid[];
  ev_entries uuid[] := ARRAY[]::uuid[];
  ev_at timestamptz[] := ARRAY[]::timestamptz[];
  ev_details jsonb[] := ARRAY[]::jsonb[];
  ev_seqs bigint[] := ARRAY[]::bigint[];
  ev_prev_ids bigint[] := ARRAY[]::bigint[];
  ev_prev_hashes bytea[] := ARRAY[]::bytea[];
  ev_hashes bytea[] := ARRAY[]::bytea[];
  v_id bigint;
  v_details jsonb;
BEGIN
  IF n IS NULL OR n = 0 THEN
    RETURN;
  END IF;
  SELECT array_agg(DISTINCT u.p ORDER BY u.p) INTO progs FROM unnest(p_programs) u(p);
  np := cardinality(progs);
  pg_of := array_fill(NULL::integer, ARRAY[n]);
  FOR i IN 1 .. n LOOP
    pg_of[i] := array_position(progs, p_programs[i]);
  END LOOP;

  -- The locks, in the global order.
  SELECT w.active INTO v_ws_active FROM workspaces w WHERE w.id = p_workspace FOR KEY SHARE;
  pr_found := array_fill(false, ARRAY[np]);
  pr_open := array_fill(false, ARRAY[np]);
  pr_notice_id := array_fill(NULL::uuid, ARRAY[np]);
  pr_notice_version := array_fill(NULL::integer, ARRAY[np]);
  pr_queue_cap := array_fill(0, ARRAY[np]);
  pr_hourly_cap := array_fill(0, ARRAY[np]);
  pr_admitted := array_fill(0, ARRAY[np]);
  FOR k IN 1 .. np LOOP
    SELECT p.signup_open, p.current_notice_id, p.current_notice_version, p.queue_cap, p.hourly_cap
      INTO v_prog FROM programs p WHERE p.id = progs[k] AND p.workspace_id = p_workspace FOR UPDATE;
    IF FOUND AND v_ws_active IS TRUE AND v_prog.current_notice_id IS NOT NULL THEN
      pr_found[k] := true;
      any_found := true;
      pr_open[k] := v_prog.signup_open;
      pr_notice_id[k] := v_prog.current_notice_id;
      pr_notice_version[k] := v_prog.current_notice_version;
      pr_queue_cap[k] := v_prog.queue_cap;
      pr_hourly_cap[k] := v_prog.hourly_cap;
    END IF;
  END LOOP;
  IF NOT any_found THEN
    PERFORM set_config('synchronous_commit', 'off', true);
    RETURN QUERY SELECT i::integer, 'not_found'::text, NULL::bytea FROM generate_series(1, n) i;
    RETURN;
  END IF;

  -- The batch's reads, one statement each, after the locks: per element, by its own key
  -- (a correlated scalar subquery on a unique key or an index's leading columns, as V105,
  -- so the plan made once per session serves any statistics). `OFFSET 0` keeps each
  -- subquery computed once.
  SELECT array_agg(x.b ORDER BY x.o), array_agg(x.spent ORDER BY x.o), array_agg(x.email_id ORDER BY x.o),
         array_agg(x.mailbox_id ORDER BY x.o)
    INTO db_binding, db_spent, db_email_entry, db_mailbox_entry
    FROM (SELECT u.o,
                 (SELECT r.binding_hmac FROM signup_receipts r WHERE r.program_id = u.p AND r.request_key = u.k) AS b,
                 coalesce((SELECT true FROM pow_spent s WHERE s.signature = u.sig), false) AS spent,
                 (SELECT e.id FROM entries e WHERE e.program_id = u.p AND e.email_key = u.email) AS email_id,
                 CASE WHEN u.mailbox IS NOT NULL THEN
                   (SELECT m.id FROM entries m WHERE m.program_id = u.p AND m.mailbox_key = u.mailbox
                    ORDER BY m.created_at, m.id LIMIT 1) END AS mailbox_id
          FROM unnest(p_programs, p_request_keys, p_pow_signatures, p_emails, p_mailbox_keys)
            WITH ORDINALITY u(p, k, sig, email, mailbox, o) OFFSET 0) x;

  -- Earlier elements with the same value, as chains (lag within each value).
  IF n > 1 THEN
    SELECT array_agg(x.by_key ORDER BY x.o), array_agg(x.by_pow ORDER BY x.o), array_agg(x.by_email ORDER BY x.o),
           array_agg(x.by_mailbox ORDER BY x.o)
      INTO prev_key, prev_pow, prev_email, prev_mailbox
      FROM (SELECT u.o::integer AS o,
                   lag(u.o::integer) OVER (PARTITION BY u.p, u.k ORDER BY u.o) AS by_key,
                   lag(u.o::integer) OVER (PARTITION BY u.sig ORDER BY u.o) AS by_pow,
                   lag(u.o::integer) OVER (PARTITION BY u.p, u.email ORDER BY u.o) AS by_email,
                   lag(u.o::integer) OVER (PARTITION BY u.p, u.mailbox ORDER BY u.o) AS by_mailbox
            FROM unnest(p_programs, p_request_keys, p_pow_signatures, p_emails, p_mailbox_keys)
              WITH ORDINALITY u(p, k, sig, email, mailbox, o)) x;
  ELSE
    prev_key := ARRAY[NULL::integer];
    prev_pow := prev_key;
    prev_email := prev_key;
    prev_mailbox := prev_key;
  END IF;

  pr_last_bucket := array_fill(NULL::timestamptz, ARRAY[np]);
  v_expected := 0;
  v_at := clock_timestamp();
  v_bucket := date_trunc('hour', v_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC';
  -- Per program, after the locks: its hour's admissions and its queue (every entry not
  -- withdrawn, from its entries' counts).
  SELECT array_agg(coalesce((SELECT h.admitted_count FROM intake_hours h
                             WHERE h.program_id = u.p AND h.bucket_start = v_bucket), 0) ORDER BY u.o),
         array_agg((SELECT coalesce(sum(c.n), 0)::integer FROM program_entry_counts c
                     WHERE c.program_id = u.p AND c.state <> 'withdrawn') ORDER BY u.o)
    INTO pr_hour, pr_queue FROM unnest(progs) WITH ORDINALITY u(p, o);

  -- The decisions, element by element in arrival order (V61's order), in memory.
  FOR i IN 1 .. n LOOP
    k := pg_of[i];
    IF NOT pr_found[k] THEN
      outcomes[i] := 'not_found';
      CONTINUE;
    END IF;
    -- The request key: committed before, or by an earlier element of this batch.
    IF db_binding[i] IS NOT NULL THEN
      outcomes[i] := 'receipt';
      replied[i] := db_binding[i];
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
    -- A proof of work spent before, or by an earlier element (of any program).
    IF p_pow_signatures[i] IS NOT NULL THEN
      IF db_spent[i] THEN
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
      WHEN NOT pr_open[k] THEN 'closed'
      WHEN pr_notice_version[k] IS DISTINCT FROM p_notice_versions[i] THEN 'notice_outdated'
      WHEN p_permissions[i] IS NOT TRUE THEN 'permission_required'
    END;
    IF outcomes[i] IS NOT NULL THEN
      CONTINUE;
    END IF;
    -- This element's instant, should it write; the caps at that instant.
    v_row_at := v_at + make_interval(secs => v_written / 1000000.0);
    v_row_bucket := date_trunc('hour', v_row_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC';
    IF v_row_bucket <> v_bucket THEN
      -- The batch crossed an hour: the new hour's buckets as the database holds them.
      v_bucket := v_row_bucket;
      SELECT array_agg(coalesce((SELECT h.admitted_count FROM intake_hours h
                                 WHERE h.program_id = u.p AND h.bucket_start = v_bucket), 0) ORDER BY u.o)
        INTO pr_hour FROM unnest(progs) WITH ORDINALITY u(p, o);
    END IF;
    IF pr_queue[k] + pr_admitted[k] >= pr_queue_cap[k] OR pr_hour[k] >= pr_hourly_cap[k] THEN
      outcomes[i] := 'capped';
      CONTINUE;
    END IF;
    at_of[i] := v_row_at;
    v_written := v_written + 1;
    -- The email: known before, or admitted by an earlier element.
    IF db_email_entry[i] IS NOT NULL THEN
      outcomes[i] := 'duplicate';
      entry_of[i] := db_email_entry[i];
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
    IF pr_admitted[k] = 0 THEN
      upd_ids := upd_ids || progs[k];
    END IF;
    pr_admitted[k] := pr_admitted[k] + 1;
    pr_hour[k] := pr_hour[k] + 1;
    IF pr_last_bucket[k] IS DISTINCT FROM v_row_bucket THEN
      pr_last_bucket[k] := v_row_bucket;
      v_expected := v_expected + 1;
    END IF;
    -- The program's earliest entry of the same mailbox: one from before, else an earlier
    -- new one of this batch.
    IF p_mailbox_keys[i] IS NOT NULL THEN
      IF db_mailbox_entry[i] IS NOT NULL THEN
        twin_of[i] := db_mailbox_entry[i];
      ELSE
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
      SELECT entry_of[i], p_programs[i], p_emails[i], pr_notice_id[pg_of[i]], at_of[i], 'waiting', at_of[i], at_of[i],
             p_source_refs[i], p_disposable_domains[i], p_mailbox_keys[i], twin_of[i]
      FROM generate_series(1, n) i WHERE new_entry[i] ORDER BY i;
    -- One row for each (program, hour) the batch's new entries fall in (one hour, unless
    -- it crossed one), counted as they were decided (v_expected).
    INSERT INTO intake_hours AS h (program_id, bucket_start, admitted_count)
      SELECT p_programs[i], date_trunc('hour', at_of[i] AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', count(*)::integer
      FROM generate_series(1, n) i WHERE new_entry[i] GROUP BY 1, 2
      ON CONFLICT (program_id, bucket_start) DO UPDATE SET admitted_count = h.admitted_count + EXCLUDED.admitted_count
      WHERE h.admitted_count + EXCLUDED.admitted_count <= pr_hourly_cap[array_position(progs, h.program_id)];
    GET DIAGNOSTICS v_rows = ROW_COUNT;
    IF v_rows <> v_expected THEN
      RAISE EXCEPTION 'hour counter guard missed' USING ERRCODE = 'serialization_failure';
    END IF;
  END IF;
  INSERT INTO signup_receipts (program_id, request_key, binding_hmac, entry_id, accepted_at)
    SELECT p_programs[i], p_request_keys[i], p_bindings[i], entry_of[i], at_of[i] FROM generate_series(1, n) i
    WHERE at_of[i] IS NOT NULL ORDER BY i;

  IF v_admitted > 0 THEN
    -- The chains: each program's head under its lock, then each event in arrival order,
    -- chained to its own program's previous one. Ids drawn after the locks are above every
    -- committed event's (V50's id-order rule). (By `chain_seq`, the same row as by id, as
    -- V105: only the (program_id, chain_seq) index gives that order.)
    SELECT array_agg(h.id ORDER BY u.o), array_agg(coalesce(h.chain_seq, 0) ORDER BY u.o),
           array_agg(coalesce(h.hash, decode(repeat('00', 32), 'hex')) ORDER BY u.o)
      INTO hd_ids, hd_seqs, hd_hashes
      FROM unnest(progs) WITH ORDINALITY u(p, o)
      LEFT JOIN LATERAL (SELECT a.id, a.chain_seq, a.hash FROM audit_events a WHERE a.program_id = u.p
                         ORDER BY a.chain_seq DESC LIMIT 1) h ON true;
    v_seq := pg_get_serial_sequence('audit_events', 'id')::regclass;
    FOR i IN 1 .. n LOOP
      CONTINUE WHEN NOT new_entry[i];
      k := pg_of[i];
      v_id := nextval(v_seq);
      v_details := jsonb_build_object('noticeVersion', p_notice_versions[i]);
      ev_ids := ev_ids || v_id;
      ev_programs := ev_programs || p_programs[i];
      ev_entries := ev_entries || entry_of[i];
      ev_at := ev_at || at_of[i];
      ev_details := ev_details || v_details;
      ev_seqs := ev_seqs || (hd_seqs[k] + 1);
      ev_prev_ids := ev_prev_ids || hd_ids[k];
      ev_prev_hashes := ev_prev_hashes || hd_hashes[k];
      hd_hashes[k] := sha256(hd_hashes[k] || audit_canonical(v_id, p_programs[i], hd_seqs[k] + 1, hd_ids[k],
        entry_of[i], 'public', NULL, 'signup', at_of[i], v_details));
      hd_seqs[k] := hd_seqs[k] + 1;
      hd_ids[k] := v_id;
      ev_hashes := ev_hashes || hd_hashes[k];
    END LOOP;
    PERFORM set_config('vestibule.prechained', 'admit_signups', true);
    INSERT INTO audit_events (id, program_id, entry_id, actor_kind, actor_staff_id, event_type, event_at, details,
                              chain_seq, prev_id, prev_hash, hash)
      OVERRIDING SYSTEM VALUE
      SELECT ev_ids[x], ev_programs[x], ev_entries[x], 'public', NULL, 'signup', ev_at[x], ev_details[x],
             ev_seqs[x], ev_prev_ids[x], ev_prev_hashes[x], ev_hashes[x]
      FROM generate_series(1, cardinality(ev_ids)) x ORDER BY x;
    PERFORM set_config('vestibule.prechained', '', true);
    -- The outbox, as `outbox_enqueue` (V83, V123) would have enqueued each `signup` event:
    -- `entry.created` with the entry's state, when some endpoint of the workspace
    -- subscribed to it for that event's program, or an internal subscriber wants it; one
    -- delivery per target, a disabled endpoint's `skipped` (recorded for its recovery,
    -- never claimed).
    IF EXISTS (SELECT 1 FROM webhook_endpoints w WHERE w.workspace_id = p_workspace
                 AND 'entry.created' = ANY (w.event_types) AND (w.program_ids IS NULL OR w.program_ids && upd_ids))
       OR EXISTS (SELECT 1 FROM outbox_internal_subscriptions s WHERE s.event_type = 'entry.created') THEN
      WITH want AS (
        SELECT x, ev_ids[x] AS audit_event_id, ev_programs[x] AS program_id
        FROM generate_series(1, cardinality(ev_ids)) x
        WHERE EXISTS (SELECT 1 FROM webhook_endpoints w WHERE w.workspace_id = p_workspace
                        AND 'entry.created' = ANY (w.event_types)
                        AND (w.program_ids IS NULL OR ev_programs[x] = ANY (w.program_ids)))
           OR EXISTS (SELECT 1 FROM outbox_internal_subscriptions s WHERE s.event_type = 'entry.created')),
      ev AS (
        INSERT INTO outbox_events (audit_event_id, workspace_id, program_id, event_type, payload, created_at)
        SELECT want.audit_event_id, p_workspace, want.program_id, 'entry.created',
               jsonb_build_object('type', 'entry.created',
                 'timestamp', to_char(ev_at[want.x] AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
                 'data', jsonb_strip_nulls(jsonb_build_object('workspaceId', p_workspace, 'programId', want.program_id,
                   'entryId', ev_entries[want.x], 'state', 'waiting'))),
               ev_at[want.x]
        FROM want ORDER BY want.x
        RETURNING id, audit_event_id, program_id, created_at)
      INSERT INTO outbox_deliveries (event_id, target_kind, endpoint_id, state, next_attempt_at, created_at)
      SELECT t.event_id, t.target_kind, t.endpoint_id, t.state, t.at, t.at FROM (
        SELECT ev.id AS event_id, ev.audit_event_id, 0 AS part, 'webhook' AS target_kind, w.id AS endpoint_id,
               CASE WHEN w.enabled THEN 'pending' ELSE 'skipped' END AS state, ev.created_at AS at
        FROM ev JOIN webhook_endpoints w ON w.workspace_id = p_workspace
          AND 'entry.created' = ANY (w.event_types) AND (w.program_ids IS NULL OR ev.program_id = ANY (w.program_ids))
        UNION ALL
        SELECT ev.id, ev.audit_event_id, 1, s.target_kind, NULL, 'pending', ev.created_at
        FROM ev JOIN outbox_internal_subscriptions s ON s.event_type = 'entry.created') t
      ORDER BY t.audit_event_id, t.part;
    END IF;
  END IF;
  RETURN QUERY SELECT i::integer, outcomes[i], replied[i] FROM generate_series(1, n) i;
END $$;

DROP FUNCTION admit_signup(uuid, uuid, uuid, text, integer, boolean, bytea, text, boolean, text, bytea, timestamptz);

ALTER TABLE programs DROP COLUMN queue_count;
