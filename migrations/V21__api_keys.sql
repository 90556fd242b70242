-- Workspace API keys for the server API (/api/v1, issue 13). Only the SHA-256 of a key
-- is kept; the prefix (the first characters, not a secret) tells keys apart. The
-- per-key rate window lives on the row: the one statement that authenticates a request
-- also counts it and stamps last use.
CREATE TABLE api_keys (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces(id),
  name text NOT NULL CONSTRAINT api_keys_name_len CHECK (char_length(name) BETWEEN 1 AND 80),
  prefix text NOT NULL CONSTRAINT api_keys_prefix CHECK (prefix ~ '^vst_[A-Za-z0-9_-]{6}$'),
  digest bytea NOT NULL CONSTRAINT api_keys_digest_len CHECK (octet_length(digest) = 32),
  scopes text[] NOT NULL CONSTRAINT api_keys_scopes CHECK (cardinality(scopes) BETWEEN 1 AND 2
    AND scopes <@ ARRAY['access:read', 'entries:read']),
  created_by uuid NOT NULL REFERENCES staff_members(id),
  created_at timestamptz NOT NULL,
  last_used_at timestamptz,
  revoked_at timestamptz,
  rate_window timestamptz,
  rate_hits integer NOT NULL DEFAULT 0 CONSTRAINT api_keys_rate_hits CHECK (rate_hits >= 0),
  CONSTRAINT api_keys_digest_key UNIQUE (digest)
);
CREATE INDEX api_keys_ws_idx ON api_keys (workspace_id, created_at);

GRANT SELECT, INSERT, UPDATE ON api_keys TO vestibule_app;
