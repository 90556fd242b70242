-- Issue 29: lottery draws on public randomness (record format 3). Opening a draw fixes
-- its entrant rule (the filter of V53), its number of winners, the instant entries close
-- and a future round of a drand beacon chain (whose public key, genesis, period and scheme
-- are copied onto the draw); there is no seed. The close freezes the tickets — the
-- entrants waiting at the opening plus those who signed up before the close, every one
-- matching the rule — and marks each ticket whose entry left the queue in between as
-- excluded, naming the chained audit event that moved it. Running takes the round's
-- signature, verified against the chain's key; randomness = SHA-256(signature); the
-- winners follow from the tickets and the randomness alone (api/src/draw/beacon.rs).
--
-- Draws of formats 1 and 2 (a server seed) keep their rows and stay verifiable; an open
-- one may still be run as before or cancelled.
--
-- Frozen means frozen: the triggers below refuse any change to a draw's fixed fields,
-- any state change but open → closed → run and open|closed → cancelled (a run or
-- cancelled draw is never re-opened), any deletion, and any change to a ticket once its
-- draw has moved past the step that sets it. `vestibule verify` checks the triggers are in
-- place and recomputes every format 3 draw against its chained events.

INSERT INTO audit_event_types (name) VALUES ('draw_closed'), ('draw_cancelled');

ALTER TABLE draws
  ADD COLUMN state text,
  ADD COLUMN closes_at timestamptz,
  ADD COLUMN closed_at timestamptz,
  ADD COLUMN cancelled_at timestamptz,
  ADD COLUMN cancel_reason text,
  ADD COLUMN chain_public_key bytea,
  ADD COLUMN chain_genesis bigint,
  ADD COLUMN chain_period integer,
  ADD COLUMN chain_scheme text,
  ADD COLUMN beacon_round bigint,
  ADD COLUMN beacon_signature bytea,
  ADD COLUMN randomness bytea,
  -- The chained `draw_opened` and `draw_closed` events: the stretch of the program's
  -- audit chain between them is where every exclusion's reason must be.
  ADD COLUMN opened_event bigint CONSTRAINT draws_opened_event REFERENCES audit_events (id),
  ADD COLUMN closed_event bigint CONSTRAINT draws_closed_event REFERENCES audit_events (id);

UPDATE draws SET state = CASE WHEN run_at IS NULL THEN 'open' ELSE 'run' END;

ALTER TABLE draws
  ALTER COLUMN state SET NOT NULL,
  ALTER COLUMN seed DROP NOT NULL,
  ALTER COLUMN seed_commitment DROP NOT NULL,
  ALTER COLUMN tickets_hash DROP NOT NULL,
  DROP CONSTRAINT draws_format,
  DROP CONSTRAINT draws_candidates,
  DROP CONSTRAINT draws_format_1_unfiltered;

ALTER TABLE draws
  ADD CONSTRAINT draws_format CHECK (format IN (1, 2, 3)),
  ADD CONSTRAINT draws_format_1_unfiltered CHECK (format <> 1 OR (filter_source IS NULL AND filter_flag IS NULL)),
  ADD CONSTRAINT draws_candidates CHECK (candidates >= 0),
  ADD CONSTRAINT draws_state CHECK (state IN ('open', 'closed', 'run', 'cancelled')),
  ADD CONSTRAINT draws_cancel_reason CHECK (cancel_reason IN
    ('opened_in_error', 'seats_unavailable', 'owner_discretion', 'closed_late')),
  ADD CONSTRAINT draws_run_state CHECK ((state = 'run') = (run_at IS NOT NULL)),
  ADD CONSTRAINT draws_cancel_state CHECK ((state = 'cancelled') = (cancelled_at IS NOT NULL AND cancel_reason IS NOT NULL)),
  -- A server seed (formats 1 and 2): no beacon, never `closed`.
  ADD CONSTRAINT draws_seeded CHECK (format = 3 OR (
    seed IS NOT NULL AND seed_commitment IS NOT NULL AND tickets_hash IS NOT NULL AND state <> 'closed'
    AND closes_at IS NULL AND closed_at IS NULL AND chain_public_key IS NULL AND beacon_round IS NULL
    AND opened_event IS NULL AND closed_event IS NULL
    AND beacon_signature IS NULL AND randomness IS NULL)),
  -- Public randomness (format 3): no seed; a beacon; closed before it runs.
  ADD CONSTRAINT draws_beacon CHECK (format < 3 OR (
    seed IS NULL AND seed_commitment IS NULL
    AND closes_at IS NOT NULL AND closes_at >= opened_at
    AND chain_public_key IS NOT NULL AND octet_length(chain_public_key) IN (48, 96)
    AND chain_genesis > 0 AND chain_period > 0
    AND chain_scheme IN ('bls-unchained-g1-rfc9380', 'bls-unchained-on-g1', 'pedersen-bls-unchained')
    AND beacon_round >= 1 AND opened_event IS NOT NULL
    AND (closed_at IS NOT NULL) = (closed_event IS NOT NULL)
    AND (closed_at IS NOT NULL) = (tickets_hash IS NOT NULL)
    AND (state NOT IN ('closed', 'run') OR closed_at IS NOT NULL)
    AND (state <> 'open' OR closed_at IS NULL)
    AND (closed_at IS NULL OR closed_at >= closes_at)
    AND (state = 'run') = (beacon_signature IS NOT NULL)
    AND (beacon_signature IS NULL) = (randomness IS NULL)
    AND (randomness IS NULL OR octet_length(randomness) = 32)
    AND (tickets_hash IS NULL OR octet_length(tickets_hash) = 32)));

-- One draw at a time per program: open or closed (a run or cancelled one no longer counts).
DROP INDEX draws_one_open_per_program;
CREATE UNIQUE INDEX draws_one_open_per_program ON draws (program_id) WHERE state IN ('open', 'closed');
-- The closer's question: which draws' entries are due to close.
CREATE INDEX draws_due_to_close ON draws (closes_at) WHERE state = 'open' AND format = 3;

-- Format 3 tickets: `eligible` and `excluded_by` are set at the close (the event that
-- moved an excluded ticket's entry out of `waiting`), `drawn_rank` and `lapsed` at the
-- run (`lapsed`: drawn, but the entry had left the queue since the close, so it was not
-- selected and its seat is not passed on).
ALTER TABLE draw_tickets
  ADD COLUMN excluded_by bigint CONSTRAINT draw_tickets_excluded_by REFERENCES audit_events (id),
  ADD COLUMN lapsed boolean,
  ADD CONSTRAINT draw_tickets_exclusion CHECK (excluded_by IS NULL OR eligible = false),
  ADD CONSTRAINT draw_tickets_lapsed CHECK (lapsed IS NULL OR drawn_rank IS NOT NULL);

CREATE FUNCTION draws_frozen() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  step text;
BEGIN
  IF TG_OP = 'DELETE' THEN
    RAISE EXCEPTION 'a draw is never deleted' USING ERRCODE = 'P0001';
  END IF;
  IF (NEW.id, NEW.program_id, NEW.format, NEW.winners, NEW.seed, NEW.seed_commitment, NEW.opened_at,
      NEW.filter_source, NEW.filter_flag, NEW.closes_at, NEW.chain_public_key, NEW.chain_genesis,
      NEW.chain_period, NEW.chain_scheme, NEW.beacon_round, NEW.opened_event)
     IS DISTINCT FROM
     (OLD.id, OLD.program_id, OLD.format, OLD.winners, OLD.seed, OLD.seed_commitment, OLD.opened_at,
      OLD.filter_source, OLD.filter_flag, OLD.closes_at, OLD.chain_public_key, OLD.chain_genesis,
      OLD.chain_period, OLD.chain_scheme, OLD.beacon_round, OLD.opened_event) THEN
    RAISE EXCEPTION 'draw %: its fixed fields never change', OLD.id USING ERRCODE = 'P0001';
  END IF;
  step := OLD.state || '>' || NEW.state;
  IF OLD.state <> NEW.state AND NOT (
       (OLD.format = 3 AND step IN ('open>closed', 'closed>run', 'open>cancelled', 'closed>cancelled'))
       OR (OLD.format < 3 AND step IN ('open>run', 'open>cancelled'))) THEN
    RAISE EXCEPTION 'draw %: % is not a step a draw takes (it is never re-opened)', OLD.id, step USING ERRCODE = 'P0001';
  END IF;
  -- What each step sets, once; everything else stays.
  IF (NEW.candidates, NEW.tickets_hash, NEW.closed_at, NEW.closed_event)
     IS DISTINCT FROM (OLD.candidates, OLD.tickets_hash, OLD.closed_at, OLD.closed_event)
     AND NOT (step = 'open>closed' AND OLD.closed_at IS NULL AND OLD.format = 3) THEN
    RAISE EXCEPTION 'draw %: its tickets are frozen', OLD.id USING ERRCODE = 'P0001';
  END IF;
  IF (NEW.run_at, NEW.beacon_signature, NEW.randomness) IS DISTINCT FROM (OLD.run_at, OLD.beacon_signature, OLD.randomness)
     AND NOT (step IN ('closed>run', 'open>run') AND OLD.run_at IS NULL) THEN
    RAISE EXCEPTION 'draw %: its run is fixed', OLD.id USING ERRCODE = 'P0001';
  END IF;
  IF (NEW.cancelled_at, NEW.cancel_reason) IS DISTINCT FROM (OLD.cancelled_at, OLD.cancel_reason)
     AND NOT (step IN ('open>cancelled', 'closed>cancelled') AND OLD.cancelled_at IS NULL) THEN
    RAISE EXCEPTION 'draw %: its cancellation is fixed', OLD.id USING ERRCODE = 'P0001';
  END IF;
  RETURN NEW;
END $$;

CREATE TRIGGER draws_frozen BEFORE UPDATE OR DELETE ON draws
  FOR EACH ROW EXECUTE FUNCTION draws_frozen();
CREATE TRIGGER draws_no_truncate BEFORE TRUNCATE ON draws
  FOR EACH STATEMENT EXECUTE FUNCTION block_immutable_reference_edits();

-- Tickets: written while their draw is open (at the opening and by the close), never
-- deleted, their identity never changed; `eligible`/`excluded_by` set once while the draw
-- is open (the close, or a seeded draw's run), `drawn_rank`/`lapsed` once while it is
-- closed (a format 3 run) or open (a seeded run).
CREATE FUNCTION draw_tickets_frozen() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  d record;
BEGIN
  IF TG_OP = 'DELETE' THEN
    RAISE EXCEPTION 'a draw ticket is never deleted' USING ERRCODE = 'P0001';
  END IF;
  SELECT state, format INTO d FROM draws WHERE id = NEW.draw_id;
  IF TG_OP = 'INSERT' THEN
    IF d.state IS DISTINCT FROM 'open' THEN
      RAISE EXCEPTION 'draw %: tickets are only added while it is open', NEW.draw_id USING ERRCODE = 'P0001';
    END IF;
    RETURN NEW;
  END IF;
  IF (NEW.draw_id, NEW.program_id, NEW.entry_id, NEW.ticket) IS DISTINCT FROM
     (OLD.draw_id, OLD.program_id, OLD.entry_id, OLD.ticket) THEN
    RAISE EXCEPTION 'draw %: a ticket never changes', OLD.draw_id USING ERRCODE = 'P0001';
  END IF;
  IF (NEW.eligible, NEW.excluded_by) IS DISTINCT FROM (OLD.eligible, OLD.excluded_by)
     AND NOT (d.state = 'open' AND OLD.eligible IS NULL AND OLD.excluded_by IS NULL) THEN
    RAISE EXCEPTION 'draw %: exclusions are frozen at the close', OLD.draw_id USING ERRCODE = 'P0001';
  END IF;
  IF (NEW.drawn_rank, NEW.lapsed) IS DISTINCT FROM (OLD.drawn_rank, OLD.lapsed)
     AND NOT (d.state = CASE WHEN d.format = 3 THEN 'closed' ELSE 'open' END
              AND OLD.drawn_rank IS NULL AND OLD.lapsed IS NULL) THEN
    RAISE EXCEPTION 'draw %: the winners are fixed', OLD.draw_id USING ERRCODE = 'P0001';
  END IF;
  RETURN NEW;
END $$;

CREATE TRIGGER draw_tickets_frozen BEFORE INSERT OR UPDATE OR DELETE ON draw_tickets
  FOR EACH ROW EXECUTE FUNCTION draw_tickets_frozen();
CREATE TRIGGER draw_tickets_no_truncate BEFORE TRUNCATE ON draw_tickets
  FOR EACH STATEMENT EXECUTE FUNCTION block_immutable_reference_edits();
