-- Queue search (POST /api/owner/programs/{id}/entries/search) looks for an email
-- fragment anywhere in the address: `email_key ILIKE '%fragment%'`. No b-tree can
-- answer that, so without this index a search reads every entry of the program (131 ms
-- at 100 000 entries, issue 18). A trigram GIN index over all entries finds a fragment
-- of three or more characters in about a millisecond at 1 M entries; the planner still
-- prefers the queue-order index when the fragment is common (most rows match, and the
-- first page is found early) or shorter than three characters.
--
-- Cost on admission: one GIN insert per entry, into the pending list (fastupdate), so
-- a signup does not pay for ~30 posting-list updates under the program lock. The
-- pending list is kept small (256 kB rather than 4 MB), so the signup that has to merge
-- it into the index waits milliseconds, not a quarter of a second; autovacuum merges it
-- too.
--
-- pg_trgm is a trusted extension (PostgreSQL 13+): the database owner who runs the
-- migrations may create it. Building the index locks `entries` against writes while it
-- runs (about 25 s at 1 M entries on the benchmark machine); on a large installation,
-- create it CONCURRENTLY by hand with the same name before upgrading, and this migration
-- keeps it.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX IF NOT EXISTS entries_email_trgm_idx ON entries
  USING gin (email_key gin_trgm_ops) WITH (gin_pending_list_limit = 256);
