-- Issue 16: verifiable lottery draws. Opening a draw freezes its candidates (the
-- program's waiting entries) as tickets — ticket = SHA-256(program id || entry id), so a
-- ticket names no one — and publishes a commitment: SHA-256 of a server-random seed and
-- SHA-256 of the sorted tickets concatenated. Running it later reveals the seed; the
-- winners are the first `winners` tickets still waiting, ordered by
-- HMAC-SHA256(seed, ticket), and are selected with reason `lottery` in that transaction.
-- The seed is kept here while the draw is open and never answered before it has run.

INSERT INTO audit_event_types (name) VALUES ('draw_opened'), ('draw_run');

CREATE TABLE draws (
  id uuid PRIMARY KEY,
  program_id uuid NOT NULL REFERENCES programs(id),
  winners integer NOT NULL CONSTRAINT draws_winners CHECK (winners BETWEEN 1 AND 100000),
  candidates integer NOT NULL CONSTRAINT draws_candidates CHECK (candidates >= 1),
  seed bytea NOT NULL CONSTRAINT draws_seed_len CHECK (octet_length(seed) = 32),
  seed_commitment bytea NOT NULL CONSTRAINT draws_commitment_len CHECK (octet_length(seed_commitment) = 32),
  tickets_hash bytea NOT NULL CONSTRAINT draws_tickets_hash_len CHECK (octet_length(tickets_hash) = 32),
  opened_at timestamptz NOT NULL,
  run_at timestamptz CONSTRAINT draws_run_after_open CHECK (run_at IS NULL OR run_at >= opened_at),
  CONSTRAINT draws_id_program_key UNIQUE (id, program_id)
);
-- One open draw per program: opening a second one is refused by the database too.
CREATE UNIQUE INDEX draws_one_open_per_program ON draws (program_id) WHERE run_at IS NULL;

CREATE TABLE draw_tickets (
  draw_id uuid NOT NULL,
  program_id uuid NOT NULL,
  entry_id uuid NOT NULL,
  ticket bytea NOT NULL CONSTRAINT draw_tickets_ticket_len CHECK (octet_length(ticket) = 32),
  -- Set when the draw runs: whether the entry was still waiting, and its place among
  -- the winners (1-based) when drawn.
  eligible boolean,
  drawn_rank integer CONSTRAINT draw_tickets_rank CHECK (drawn_rank IS NULL OR drawn_rank >= 1),
  CONSTRAINT draw_tickets_pkey PRIMARY KEY (draw_id, entry_id),
  CONSTRAINT draw_tickets_draw_same_program FOREIGN KEY (draw_id, program_id) REFERENCES draws (id, program_id),
  CONSTRAINT draw_tickets_entry_same_program FOREIGN KEY (entry_id, program_id) REFERENCES entries (id, program_id)
);
CREATE INDEX draw_tickets_entry_idx ON draw_tickets (entry_id);

GRANT SELECT, INSERT, UPDATE ON draws, draw_tickets TO vestibule_app;
