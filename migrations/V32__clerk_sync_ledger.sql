-- What "on grant, in Clerk" has put into Clerk (issue 14). Removal reads these rows, not
-- the grant: erasure redacts an inactive grant's Clerk user id in the very transaction
-- that revokes it, before the removal is delivered. A grant's row is written before its
-- first Clerk call (pinning the setting it was synced with) and deleted once its removal
-- is done, so it holds the Clerk user id only while something of the grant is in Clerk.
CREATE TABLE clerk_sync_grants (
  grant_id uuid PRIMARY KEY REFERENCES grants(id),
  clerk_user_id text NOT NULL CONSTRAINT clerk_sync_grants_user CHECK (clerk_user_id ~ '^[A-Za-z0-9_-]{1,128}$'),
  public_metadata boolean NOT NULL,
  organization_id text CONSTRAINT clerk_sync_grants_org CHECK (organization_id ~ '^[A-Za-z0-9_]{1,64}$'),
  organization_role text CONSTRAINT clerk_sync_grants_role
    CHECK (organization_role ~ '^org:[a-z0-9_-]{1,60}$' AND organization_role NOT LIKE '%admin%'),
  CONSTRAINT clerk_sync_grants_org_pair CHECK ((organization_id IS NULL) = (organization_role IS NULL))
);
CREATE INDEX clerk_sync_grants_user_org_idx ON clerk_sync_grants (clerk_user_id, organization_id);

-- Organization memberships Vestibule created. A membership the user already had (an
-- owner's own admin seat, say) has no row here and is never removed by a revocation.
CREATE TABLE clerk_sync_memberships (
  organization_id text NOT NULL,
  clerk_user_id text NOT NULL,
  PRIMARY KEY (organization_id, clerk_user_id)
);

GRANT SELECT, INSERT, UPDATE, DELETE ON clerk_sync_grants, clerk_sync_memberships TO vestibule_app;
