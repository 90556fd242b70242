-- Grants reach Clerk (issue 14): per program, whether a grant is mirrored into the
-- user's public metadata (`public_metadata.vestibule.programs.<slug>`) and, optionally,
-- into an organization membership with a non-admin role. An absent row is "off". The
-- outbox delivers every grant.created / grant.revoked to the `clerk_sync` handler, which
-- reads the grant's current state and this setting and makes Clerk agree (idempotent).
CREATE TABLE program_clerk_sync (
  program_id uuid PRIMARY KEY REFERENCES programs(id),
  public_metadata boolean NOT NULL,
  organization_id text CONSTRAINT program_clerk_sync_org CHECK (organization_id ~ '^[A-Za-z0-9_]{1,64}$'),
  organization_role text CONSTRAINT program_clerk_sync_role
    CHECK (organization_role ~ '^org:[a-z0-9_-]{1,60}$' AND organization_role NOT LIKE '%admin%'),
  CONSTRAINT program_clerk_sync_org_pair CHECK ((organization_id IS NULL) = (organization_role IS NULL))
);

INSERT INTO outbox_internal_subscriptions (target_kind, event_type)
  VALUES ('clerk_sync', 'grant.created'), ('clerk_sync', 'grant.revoked');

GRANT SELECT, INSERT, UPDATE ON program_clerk_sync TO vestibule_app;
