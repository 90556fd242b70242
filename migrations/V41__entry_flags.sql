-- Issue 15 (b): fakes flagged, not blocked. Admission computes both facts in the
-- server before its transaction (api/src/screening); the entry insert stores them:
-- * disposable_domain: the address's domain is on the shipped disposable-domain list;
-- * mailbox_key: the provider's canonical mailbox (gmail dots and +tags, +tags where a
--   provider documents them), only for providers with alias rules; personal data like
--   email_key, so it is cleared whenever email_key is replaced (retention redaction);
-- * duplicate_of: the program's earliest entry with the same mailbox_key at admission
--   (flag `possible_duplicate`), linked inside the program, under the program lock.
-- Expand-only: defaults and nullable columns, so instances of the previous release keep
-- inserting entries.
ALTER TABLE entries
  ADD COLUMN disposable_domain boolean NOT NULL DEFAULT false,
  ADD COLUMN mailbox_key text CONSTRAINT entries_mailbox_key_len CHECK (length(mailbox_key) BETWEEN 3 AND 254),
  ADD COLUMN duplicate_of uuid,
  ADD CONSTRAINT entries_duplicate_same_program FOREIGN KEY (duplicate_of, program_id) REFERENCES entries (id, program_id),
  ADD CONSTRAINT entries_duplicate_not_self CHECK (duplicate_of <> id);

CREATE INDEX entries_mailbox_idx ON entries (program_id, mailbox_key, created_at, id) WHERE mailbox_key IS NOT NULL;
-- The queue's flag filters page in queue order over flagged entries only.
CREATE INDEX entries_disposable_queue_idx ON entries (program_id, created_at, id) WHERE disposable_domain;
CREATE INDEX entries_duplicate_queue_idx ON entries (program_id, created_at, id) WHERE duplicate_of IS NOT NULL;

-- A replaced email (redaction) takes its mailbox key with it, whoever replaces it.
CREATE FUNCTION entries_clear_mailbox_key() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.mailbox_key := NULL;
  RETURN NEW;
END $$;
CREATE TRIGGER entries_clear_mailbox_key BEFORE UPDATE OF email_key ON entries
  FOR EACH ROW WHEN (OLD.email_key IS DISTINCT FROM NEW.email_key) EXECUTE FUNCTION entries_clear_mailbox_key();
