-- Issue 31: questions on the form, and joining with a verified account.
--
-- A notice version carries its questions in its own row, so they are part of its
-- immutable snapshot (the notices_immutable trigger of V1 refuses any later edit): a new
-- version may ask other questions and every entry keeps the version it answered. The
-- rules on the questions themselves (kinds, labels, choices, lengths) are
-- `shared::questions`, checked by the server before the insert; the database keeps the
-- outer bounds.
ALTER TABLE notices ADD COLUMN questions jsonb NOT NULL DEFAULT '[]'
  CONSTRAINT notices_questions_shape CHECK (jsonb_typeof(questions) = 'array' AND jsonb_array_length(questions) <= 10);

-- Per program: `email` (anyone types an address) or `account` (signed in, one of the
-- account's currently verified addresses).
ALTER TABLE programs ADD COLUMN join_with text NOT NULL DEFAULT 'email'
  CONSTRAINT programs_join_with CHECK (join_with IN ('email', 'account'));

-- What an entry said when it joined, beside the entry: its answers (personal data:
-- retention redaction and erasure empty them, nothing else ever copies them) and, when
-- it joined signed in with a verified address, when. A row exists only for an entry
-- that answered something or joined with an account.
CREATE TABLE entry_answers (
  entry_id uuid PRIMARY KEY,
  program_id uuid NOT NULL,
  answers jsonb NOT NULL DEFAULT '{}'
    CONSTRAINT entry_answers_shape CHECK (jsonb_typeof(answers) = 'object' AND octet_length(answers::text) <= 32768),
  verified_at_join timestamptz,
  CONSTRAINT entry_answers_entry_same_program FOREIGN KEY (entry_id, program_id) REFERENCES entries (id, program_id)
);
CREATE INDEX entry_answers_program ON entry_answers (program_id);
GRANT SELECT, INSERT, UPDATE ON entry_answers TO vestibule_app;

-- The admission's hook: called in the admission's transaction right after the entry,
-- its receipt and its event are written (today: pipelined after `admit_signup(…)`, V61),
-- it stores the answers and the verified-at-join time of the entry that *this*
-- transaction created for the request key. A replay, a known address (its receipt
-- points at an older entry, which stays untouched) and every refusal write nothing:
-- the receipt and the entry must both have been inserted by the current transaction.
-- It reads no clock of its own: verified-at-join is the entry's creation time.
CREATE FUNCTION record_signup_answers(p_program uuid, p_request_key uuid, p_answers jsonb, p_verified boolean)
RETURNS void
LANGUAGE sql AS $$
  INSERT INTO entry_answers (entry_id, program_id, answers, verified_at_join)
  SELECT e.id, e.program_id, p_answers, CASE WHEN p_verified THEN e.created_at END
  FROM signup_receipts r
  JOIN entries e ON e.id = r.entry_id AND e.program_id = r.program_id
  WHERE r.program_id = p_program AND r.request_key = p_request_key
    AND r.xmin = pg_current_xact_id()::xid AND e.xmin = r.xmin
    AND (p_answers <> '{}'::jsonb OR p_verified)
$$;
