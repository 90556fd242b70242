-- Issue 26 item 2: an organization belongs to whoever administers it. A program's "On
-- grant, in Clerk" setting may name an organization only when the owner who saved it was
-- an `org:admin` member of that organization in Clerk at that moment (asked through the
-- Backend API before the save's transaction). The save records who was checked and when.
--
-- Settings saved before this migration were never checked (an owner of one workspace
-- could name another workspace's organization with a role like `org:owner`): they are
-- kept, but their organization is not acted on — the server reads an unchecked
-- organization as absent — until an organization admin saves the setting again
-- (README, "On grant, in Clerk"). The constraint holds for every new row (NOT VALID
-- leaves the old, unchecked ones in place).
ALTER TABLE program_clerk_sync
  ADD COLUMN organization_checked_at timestamptz,
  ADD COLUMN organization_checked_by uuid CONSTRAINT program_clerk_sync_checked_by REFERENCES staff_members(id);
ALTER TABLE program_clerk_sync ADD CONSTRAINT program_clerk_sync_org_checked
  CHECK (organization_id IS NULL OR (organization_checked_at IS NOT NULL AND organization_checked_by IS NOT NULL))
  NOT VALID;
