-- V143's `entry_search_merge()` runs as the migrations' owner (SECURITY DEFINER) with the
-- search path it was created with — in which, as in every path that does not name it,
-- the calling session's temporary schema comes first for relations. A caller could then
-- make the function resolve the index's name to a temporary index of its own (harmless
-- here: merging a pending list, with nothing returned but a count), which is still not
-- what a function that runs with its owner's rights should ever do. The index is now
-- named with its schema (`public`, where V2 grants the server its usage) and the path is
-- pinned to the catalog, with the temporary schema last, as PostgreSQL's documentation
-- asks of SECURITY DEFINER functions. Privileges and owner are kept (CREATE OR REPLACE).
CREATE OR REPLACE FUNCTION entry_search_merge() RETURNS bigint
LANGUAGE sql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$ SELECT pg_catalog.gin_clean_pending_list('public.entries_email_trgm_idx'::pg_catalog.regclass) $$;
