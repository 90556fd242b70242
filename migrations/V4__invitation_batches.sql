-- Bulk invitation issues (issue 4). A batch is what one `bulk_issue` owner action
-- receipt points at (owner_action_receipts.target_id = invitation_batches.id), so a
-- replay of the same request key can answer with the invitations it created — their
-- ids and metadata only; codes are never stored and never shown again.

CREATE TABLE invitation_batches (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  program_id uuid NOT NULL REFERENCES programs(id),
  created_at timestamptz NOT NULL,
  CONSTRAINT invitation_batches_id_program_key UNIQUE (id, program_id)
);

CREATE TABLE invitation_batch_items (
  batch_id uuid NOT NULL,
  program_id uuid NOT NULL,
  entry_id uuid NOT NULL,
  invitation_id uuid NOT NULL CONSTRAINT invitation_batch_items_invitation_key UNIQUE,
  CONSTRAINT invitation_batch_items_pkey PRIMARY KEY (batch_id, entry_id),
  CONSTRAINT invitation_batch_items_same_program FOREIGN KEY (batch_id, program_id)
    REFERENCES invitation_batches (id, program_id),
  CONSTRAINT invitation_batch_items_invitation_same_entry FOREIGN KEY (invitation_id, entry_id, program_id)
    REFERENCES invitations (id, entry_id, program_id)
);

GRANT SELECT, INSERT ON invitation_batches, invitation_batch_items TO vestibule_app;
