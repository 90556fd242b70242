-- Cohort codes (issue 14): multi-use codes an owner hands to a group. A signed-in user
-- with a verified email and no entry in the program redeems one after ticking the box
-- for the program's current notice; the redemption creates the entry (already active,
-- source `cohort`) and its grant in one transaction. Only the SHA-256 of the code's
-- canonical text is kept. A use is audited as `redeemed` (details cohortCodeId, grantId),
-- the same event an invitation's redemption leaves, so everything keyed on a grant's
-- creation (the outbox's grant.created) sees both. `uses` is maintained under the program lock and can never
-- pass `max_uses` (the CHECK is the backstop of the lock protocol).

-- Where an entry came from, as rows (like audit_event_types): a feature that adds a
-- source inserts its name in its own migration, without rewriting a CHECK list.
CREATE TABLE entry_sources (
  name text PRIMARY KEY CONSTRAINT entry_sources_name CHECK (name ~ '^[a-z][a-z_]{0,39}$')
);
INSERT INTO entry_sources (name) VALUES ('signup'), ('cohort');
ALTER TABLE entries ADD COLUMN source text NOT NULL DEFAULT 'signup'
  CONSTRAINT entries_source REFERENCES entry_sources (name);

CREATE TABLE cohort_codes (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  program_id uuid NOT NULL REFERENCES programs(id),
  code_sha256 bytea NOT NULL CONSTRAINT cohort_codes_sha256_key UNIQUE
    CONSTRAINT cohort_codes_digest_len CHECK (octet_length(code_sha256) = 32),
  label text NOT NULL CONSTRAINT cohort_codes_label_len CHECK (char_length(label) BETWEEN 1 AND 80),
  note text CONSTRAINT cohort_codes_note_len CHECK (note IS NULL OR char_length(note) BETWEEN 1 AND 500),
  max_uses integer NOT NULL CONSTRAINT cohort_codes_max_uses CHECK (max_uses BETWEEN 1 AND 10000),
  uses integer NOT NULL DEFAULT 0 CONSTRAINT cohort_codes_uses CHECK (uses BETWEEN 0 AND max_uses),
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL CONSTRAINT cohort_codes_expiry CHECK (expires_at > created_at),
  revoked_at timestamptz,
  created_by uuid NOT NULL REFERENCES staff_members(id),
  CONSTRAINT cohort_codes_id_program_key UNIQUE (id, program_id)
);
CREATE INDEX cohort_codes_program_idx ON cohort_codes (program_id, created_at, id);

-- A grant comes from exactly one invitation or one cohort code of its own program. The
-- grant rows of a code are its uses: one per (program, user) already holds, so one use
-- per user per code follows.
ALTER TABLE grants ALTER COLUMN invitation_id DROP NOT NULL;
ALTER TABLE grants ADD COLUMN cohort_code_id uuid;
ALTER TABLE grants ADD CONSTRAINT grants_cohort_same_program
  FOREIGN KEY (cohort_code_id, program_id) REFERENCES cohort_codes (id, program_id);
ALTER TABLE grants ADD CONSTRAINT grants_one_origin CHECK ((invitation_id IS NULL) <> (cohort_code_id IS NULL));
CREATE INDEX grants_cohort_code_idx ON grants (cohort_code_id) WHERE cohort_code_id IS NOT NULL;

INSERT INTO audit_event_types (name) VALUES ('cohort_code_created'), ('cohort_code_revoked');

GRANT SELECT, INSERT, UPDATE ON cohort_codes TO vestibule_app;
GRANT SELECT ON entry_sources TO vestibule_app;
