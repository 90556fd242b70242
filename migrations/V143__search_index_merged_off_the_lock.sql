-- Issue 28: the queue search's trigram index (V60) is merged by the server, not by a
-- signup under the program lock.
--
-- A new entry's trigrams go into the GIN index's pending list (fastupdate), and V60 kept
-- that list at 256 kB so that the signup which finds it full — and has to merge it into
-- the index itself — waited milliseconds rather than a quarter of a second. But that
-- signup merges inside its admission, holding its program's lock: every other signup of
-- the program waits for the merge, and the merge was a quarter of a lone admission's
-- cost under the lock (perf of a batch of 16: `ginInsertCleanup` 25 % of the backend, the
-- common trigrams' long posting lists decoded and rewritten every 256 kB).
--
-- Now each API instance merges the list twice a second (`entry_search_merge()`, from its
-- own connection, outside any admission: `api/src/startup.rs`), and the list may grow to
-- 4 MB (PostgreSQL's default) before an insert merges it itself — which, at the rates a
-- signup burst reaches on the benchmark machine (≈ 3.5 MB of pending trigrams a second),
-- the merger keeps from happening. A merge in progress never makes an insert wait: an
-- insert that finds the list full while another backend merges it just appends. A search
-- reads the pending list as well as the index, so it finds every committed entry whatever
-- the merger has done; the list it reads stays under a second of signups.
--
-- Merging the list needs the index's owner (as VACUUM does); the server logs in as a
-- member of `vestibule_app`, which owns nothing. So the merge is a SECURITY DEFINER
-- function of the migrations' owner that does that one thing, with the search path it was
-- created with, and only `vestibule_app` may call it.
ALTER INDEX entries_email_trgm_idx SET (gin_pending_list_limit = 4096);

CREATE FUNCTION entry_search_merge() RETURNS bigint
LANGUAGE sql
SECURITY DEFINER
SET search_path FROM CURRENT
AS $$ SELECT gin_clean_pending_list('entries_email_trgm_idx'::regclass) $$;
REVOKE ALL ON FUNCTION entry_search_merge() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION entry_search_merge() TO vestibule_app;
