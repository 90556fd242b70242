-- Issue 31's bench target (three answers within 10 % of none): V130's per-attempt
-- `record_signup_answers` had to wait for the batch's decisions (a client turnaround under
-- the program lock), because two attempts of one batch may point at one entry (a new
-- address, then the same address under another key: a `duplicate` whose receipt this
-- transaction also wrote). This variant takes the whole batch's answers and goes out in
-- the same pipeline as BEGIN, `admit_signups` and COMMIT — no extra round trip.
--
-- What it stores is exactly what the per-attempt calls stored: for each entry this
-- transaction created (the receipt's and the entry's `xmin` are the current
-- transaction's), the answers of the *first* attempt of the batch, in arrival order
-- (`p_ord`), whose receipt points at it — the attempt that created it, since a later one
-- for the same address can only find it (duplicate) — and only when that attempt had
-- answers or a verified address (the caller passes every attempt of the batch). A replay, a known address or a refusal stores nothing.
CREATE FUNCTION record_batch_answers(p_program uuid, p_request_keys uuid[], p_answers jsonb[], p_verified boolean[])
RETURNS void
LANGUAGE sql AS $$
  INSERT INTO entry_answers (entry_id, program_id, answers, verified_at_join)
  SELECT first.entry_id, first.program_id, first.answers, CASE WHEN first.verified THEN first.created_at END
  FROM (
    SELECT DISTINCT ON (e.id) e.id AS entry_id, e.program_id, e.created_at, a.answers, a.verified
    FROM unnest(p_request_keys, p_answers, p_verified) WITH ORDINALITY AS a (request_key, answers, verified, ord)
    JOIN signup_receipts r ON r.program_id = p_program AND r.request_key = a.request_key
    JOIN entries e ON e.id = r.entry_id AND e.program_id = r.program_id
    WHERE r.xmin = pg_current_xact_id()::xid AND e.xmin = r.xmin
    ORDER BY e.id, a.ord
  ) AS first
  WHERE first.answers <> '{}'::jsonb OR first.verified
$$;
