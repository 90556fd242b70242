-- Issue 15 (c): self-hosted proof of work on the public signup (api/src/pow.rs).
-- * programs.pow_level: off | normal | strict, `normal` for every program (new and
--   existing): the owner turns it off or up; instances of the previous release ignore it.
-- * pow_spent: the signature of every challenge whose solution admitted a signup, until
--   the challenge expires. Admission inserts it inside its transaction, after the receipt
--   lookup: a second use finds the row and is refused (`challenge_failed`), whichever
--   instance it reaches; a refused admission rolls it back. The server prunes expired rows.
ALTER TABLE programs
  ADD COLUMN pow_level text NOT NULL DEFAULT 'normal'
    CONSTRAINT programs_pow_level CHECK (pow_level IN ('off', 'normal', 'strict'));

CREATE TABLE pow_spent (
  signature bytea CONSTRAINT pow_spent_pkey PRIMARY KEY
    CONSTRAINT pow_spent_signature_len CHECK (octet_length(signature) = 32),
  expires_at timestamptz NOT NULL
);
CREATE INDEX pow_spent_expiry_idx ON pow_spent (expires_at);

GRANT SELECT, INSERT, DELETE ON pow_spent TO vestibule_app;
