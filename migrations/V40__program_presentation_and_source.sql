-- Issue 15 (a). A program's display title and short plain-text description, edited by
-- its owner under the program's revision (PATCH with expectedRevision; each change bumps
-- the revision and records a program_changed event naming the field, never the text).
-- And where an entry came from: the `?ref=` of the waitlist or embed URL, already
-- reduced to the shared grammar (anything else is dropped before it gets here).
-- Expand-only: nullable columns, so instances of the previous release keep working.
ALTER TABLE programs
  ADD COLUMN title text CONSTRAINT programs_title_len CHECK (char_length(title) BETWEEN 1 AND 80),
  ADD COLUMN description text CONSTRAINT programs_description_len CHECK (char_length(description) BETWEEN 1 AND 500);

ALTER TABLE entries
  ADD COLUMN source_ref text CONSTRAINT entries_source_ref_grammar CHECK (source_ref ~ '^[a-z0-9_-]{1,40}$');

-- The queue's source filter pages in queue order within one source.
CREATE INDEX entries_source_queue_idx ON entries (program_id, source_ref, created_at, id)
  WHERE source_ref IS NOT NULL;
