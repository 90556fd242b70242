-- The sign-up admission hook (issue 13): an identity provider's before-user-created
-- hook calls POST /api/hooks/admit/{workspaceId}, signed with the workspace's hook secret
-- (Standard Webhooks). The secret is sealed like a webhook's (the workspace id is the
-- associated data). Message ids seen in the last minutes are kept to refuse replays.
CREATE TABLE hook_secrets (
  workspace_id uuid PRIMARY KEY REFERENCES workspaces(id),
  secret_sealed bytea NOT NULL,
  created_at timestamptz NOT NULL
);

CREATE TABLE hook_receipts (
  workspace_id uuid NOT NULL REFERENCES workspaces(id),
  message_id text NOT NULL CONSTRAINT hook_receipts_message_id CHECK (char_length(message_id) BETWEEN 1 AND 256),
  received_at timestamptz NOT NULL,
  CONSTRAINT hook_receipts_pkey PRIMARY KEY (workspace_id, message_id)
);
CREATE INDEX hook_receipts_received_idx ON hook_receipts (received_at);

GRANT SELECT, INSERT, UPDATE ON hook_secrets TO vestibule_app;
GRANT SELECT, INSERT, DELETE ON hook_receipts TO vestibule_app;
