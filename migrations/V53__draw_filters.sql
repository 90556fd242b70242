-- Issue 16: a draw over a filter. Opening a draw may narrow its candidates (always
-- waiting entries) to one source (`entries.source_ref`, the queue's grammar) and/or a
-- flag: `disposable_domain` or `possible_duplicate` (entries carrying it) or `unflagged`
-- (entries carrying neither). The filter is frozen with the draw and is part of its
-- commitment, so the record's format changes:
-- * format 1: draws opened before this migration, over every waiting entry;
--   tickets_hash = SHA-256(sorted tickets). They keep that format and stay verifiable.
-- * format 2: every draw opened from now on; tickets_hash = SHA-256(filter line ||
--   sorted tickets) (see api/src/draw.rs), also when no filter part is given.
-- The column has no default: a writer says which format it commits to.

ALTER TABLE draws
  ADD COLUMN format smallint NOT NULL DEFAULT 1,
  ADD COLUMN filter_source text,
  ADD COLUMN filter_flag text;
ALTER TABLE draws ALTER COLUMN format DROP DEFAULT;

ALTER TABLE draws
  ADD CONSTRAINT draws_format CHECK (format IN (1, 2)),
  ADD CONSTRAINT draws_filter_source CHECK (filter_source ~ '^[a-z0-9_-]{1,40}$'),
  ADD CONSTRAINT draws_filter_flag CHECK (filter_flag IN ('disposable_domain', 'possible_duplicate', 'unflagged')),
  ADD CONSTRAINT draws_format_1_unfiltered CHECK (format = 2 OR (filter_source IS NULL AND filter_flag IS NULL));
