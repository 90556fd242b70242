-- Issue 16: the audit history as hash chains. Every event stores its place in its
-- chain (`chain_seq`, 1-based), its predecessor (`prev_id`, NULL for the first), the
-- predecessor's hash (`prev_hash`, 32 zero bytes for the first) and
-- `hash = SHA-256(prev_hash || audit_canonical(event))`. `vestibule verify` recomputes
-- the chains in Rust from the same definition (api/src/chain.rs), so the two must agree
-- byte for byte; a change of the canonical form is a new version byte, never an edit.
--
-- The chain rule: one chain per program, computed inside the writing transaction by
-- the BEFORE INSERT trigger below, under the program row lock that every writer of the
-- program already holds (the trigger takes it `FOR UPDATE` itself as well, a no-op for
-- those writers, so a writer that forgot cannot fork a chain). Events without a program
-- (workspace-level facts, should a later migration allow program_id NULL) form one
-- installation-wide chain, serialized by a transaction advisory lock in the trigger.
-- Owner membership keeps its own append-only table (staff_admin_events), outside the chains.

ALTER TABLE audit_events
  ADD COLUMN chain_seq bigint,
  ADD COLUMN prev_id bigint,
  ADD COLUMN prev_hash bytea,
  ADD COLUMN hash bytea;

CREATE FUNCTION audit_canonical_text(t text) RETURNS bytea LANGUAGE sql IMMUTABLE STRICT AS
$$ SELECT int4send(octet_length(convert_to(t, 'UTF8'))) || convert_to(t, 'UTF8') $$;

CREATE FUNCTION audit_canonical_uuid(u uuid) RETURNS bytea LANGUAGE sql IMMUTABLE AS
$$ SELECT CASE WHEN u IS NULL THEN '\x00'::bytea ELSE '\x01'::bytea || uuid_send(u) END $$;

-- Version 1 of an event's canonical bytes: a version byte, then every column but the
-- chain hashes in a fixed order, fixed-width or length-prefixed (so no two events
-- share an encoding). The time is microseconds since the Unix epoch; `details` is the
-- jsonb's own text form (keys sorted, stable through dump and restore).
CREATE FUNCTION audit_canonical(id bigint, program_id uuid, chain_seq bigint, prev_id bigint, entry_id uuid,
  actor_kind text, actor_staff_id uuid, event_type text, event_at timestamptz, details jsonb)
RETURNS bytea LANGUAGE sql IMMUTABLE AS $$
  SELECT '\x01'::bytea || int8send(id) || audit_canonical_uuid(program_id) || int8send(chain_seq)
    || int8send(coalesce(prev_id, 0)) || audit_canonical_uuid(entry_id) || audit_canonical_text(actor_kind)
    || audit_canonical_uuid(actor_staff_id) || audit_canonical_text(event_type)
    || int8send((extract(epoch FROM event_at) * 1000000)::bigint) || audit_canonical_text(details::text)
$$;

-- Chain the existing history, program by program in id order.
ALTER TABLE audit_events DISABLE TRIGGER audit_immutable;
DO $$
DECLARE
  r record;
  chain uuid;
  first boolean := true;
  last_id bigint;
  last_hash bytea;
  seq bigint;
BEGIN
  FOR r IN SELECT * FROM audit_events ORDER BY program_id, id LOOP
    IF first OR r.program_id IS DISTINCT FROM chain THEN
      chain := r.program_id;
      last_id := NULL;
      last_hash := decode(repeat('00', 32), 'hex');
      seq := 0;
      first := false;
    END IF;
    seq := seq + 1;
    UPDATE audit_events SET chain_seq = seq, prev_id = last_id, prev_hash = last_hash,
      hash = sha256(last_hash || audit_canonical(r.id, r.program_id, seq, last_id, r.entry_id, r.actor_kind,
        r.actor_staff_id, r.event_type, r.event_at, r.details))
    WHERE id = r.id
    RETURNING hash INTO last_hash;
    last_id := r.id;
  END LOOP;
END $$;
ALTER TABLE audit_events ENABLE TRIGGER audit_immutable;

ALTER TABLE audit_events
  ALTER COLUMN chain_seq SET NOT NULL,
  ALTER COLUMN prev_hash SET NOT NULL,
  ALTER COLUMN hash SET NOT NULL,
  ADD CONSTRAINT audit_chain_seq_positive CHECK (chain_seq > 0),
  ADD CONSTRAINT audit_chain_hash_len CHECK (octet_length(prev_hash) = 32 AND octet_length(hash) = 32),
  ADD CONSTRAINT audit_chain_first CHECK ((chain_seq = 1) = (prev_id IS NULL));
-- One event per place in a chain: a fork is refused by the database.
CREATE UNIQUE INDEX audit_chain_seq_key ON audit_events (program_id, chain_seq);

CREATE FUNCTION audit_chain_append() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  head record;
BEGIN
  IF NEW.program_id IS NULL THEN
    PERFORM pg_advisory_xact_lock(7316500160);
    SELECT id, chain_seq, hash INTO head FROM audit_events WHERE program_id IS NULL ORDER BY id DESC LIMIT 1;
  ELSE
    PERFORM 1 FROM programs WHERE id = NEW.program_id FOR UPDATE;
    SELECT id, chain_seq, hash INTO head FROM audit_events WHERE program_id = NEW.program_id
      ORDER BY id DESC LIMIT 1;
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

CREATE TRIGGER audit_chain BEFORE INSERT ON audit_events
  FOR EACH ROW EXECUTE FUNCTION audit_chain_append();

GRANT USAGE ON SEQUENCE audit_events_id_seq TO vestibule_app;
