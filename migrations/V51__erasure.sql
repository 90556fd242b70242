-- Issue 16: erasure that stays erased. An erasure withdraws a live entry, redacts it at
-- once (as retention redaction does, links kept) and leaves two records:
--
-- * `erasures`: the receipt (its id is shown to the applicant), one per entry.
-- * `erasure_suppressions`: a keyed hash (HMAC-SHA256 under SIGNUP_BINDING_KEY, purpose
--   `erasure-suppression`, over the program id and the normalized address) and the
--   erasure time, and nothing else. It has no foreign keys and no unique key on purpose:
--   after a restore from an older backup, the operator carries the newer rows over
--   (`pg_restore --data-only --table=erasure_suppressions NEWER.dump`, README) into a
--   database that may lack the program or already hold some of the rows; duplicates are
--   harmless. `vestibule verify` then reports live entries that match a suppression and
--   were made before it, and `vestibule redact --reapply` erases them again. A signup
--   made after the erasure is a new choice and is never matched.

INSERT INTO audit_event_types (name) VALUES ('erased');

CREATE TABLE erasures (
  id uuid PRIMARY KEY,
  program_id uuid NOT NULL REFERENCES programs(id),
  entry_id uuid NOT NULL,
  requested_by text NOT NULL CONSTRAINT erasures_requested_by CHECK (requested_by IN ('applicant', 'owner', 'system')),
  basis text NOT NULL CONSTRAINT erasures_basis CHECK (basis IN
    ('applicant_request', 'consent_withdrawn', 'legal_obligation', 'reapplied_after_restore')),
  erased_at timestamptz NOT NULL,
  CONSTRAINT erasures_entry_same_program FOREIGN KEY (entry_id, program_id) REFERENCES entries (id, program_id),
  CONSTRAINT erasures_entry_key UNIQUE (entry_id)
);

CREATE TABLE erasure_suppressions (
  erasure_id uuid NOT NULL,
  program_id uuid NOT NULL,
  address_hmac bytea NOT NULL CONSTRAINT erasure_suppressions_hmac_len CHECK (octet_length(address_hmac) = 32),
  erased_at timestamptz NOT NULL
);
CREATE INDEX erasure_suppressions_program_idx ON erasure_suppressions (program_id, erased_at);

GRANT SELECT, INSERT ON erasures, erasure_suppressions TO vestibule_app;
