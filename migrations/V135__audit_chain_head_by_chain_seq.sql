-- Issue 28 (numbered after V134; see V134 for why not in V100–V109). Every event recorded
-- outside `admit_signups` — a redemption, a cohort use, an owner's action — reads its
-- program's chain head in `audit_chain_append` (V50), under the program lock:
-- `WHERE program_id = … ORDER BY id DESC LIMIT 1`. Planned with the program's id in it
-- and statistics in which that program holds most events (it had the last big launch),
-- the plan walks the primary key backwards through every newer event of the other
-- programs until it meets one of this program's: ~51 pages a call in the bench, growing
-- with the other programs' activity since this program's last event.
--
-- The head is now read by `chain_seq` (the same row: chain order is id order within a
-- program, V50), which only the (program_id, chain_seq) index gives in order, and the
-- function's plans are generic and made once per session (as V105 does for
-- `admit_signups`), so no program's statistics can pick another path. The rest of the
-- function is V50's, unchanged.
CREATE OR REPLACE FUNCTION audit_chain_append() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  head record;
BEGIN
  IF NEW.program_id IS NULL THEN
    PERFORM pg_advisory_xact_lock(7316500160);
    SELECT id, chain_seq, hash INTO head FROM audit_events WHERE program_id IS NULL ORDER BY id DESC LIMIT 1;
  ELSE
    PERFORM 1 FROM programs WHERE id = NEW.program_id FOR UPDATE;
    SELECT id, chain_seq, hash INTO head FROM audit_events WHERE program_id = NEW.program_id
      ORDER BY chain_seq DESC LIMIT 1;
  END IF;
  IF head.id IS NOT NULL AND NEW.id < head.id THEN
    -- This row's id was drawn before the chain's lock was ours, and a later one
    -- committed first: draw again, so that id order stays chain order.
    NEW.id := nextval(pg_get_serial_sequence('audit_events', 'id'));
  END IF;
  NEW.chain_seq := coalesce(head.chain_seq, 0) + 1;
  NEW.prev_id := head.id;
  NEW.prev_hash := coalesce(head.hash, decode(repeat('00', 32), 'hex'));
  NEW.hash := sha256(NEW.prev_hash || audit_canonical(NEW.id, NEW.program_id, NEW.chain_seq, NEW.prev_id,
    NEW.entry_id, NEW.actor_kind, NEW.actor_staff_id, NEW.event_type, NEW.event_at, NEW.details));
  RETURN NEW;
END $$;

ALTER FUNCTION audit_chain_append() SET plan_cache_mode = force_generic_plan;
