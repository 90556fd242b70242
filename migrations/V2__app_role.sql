-- The role the API runs as in production (README, "Database roles"). It may read and
-- write what the app writes, but it can never UPDATE or DELETE the append-only tables,
-- and it owns nothing, so it cannot drop the triggers either. A login role is granted
-- membership by the operator: GRANT vestibule_app TO vestibule_login;
DO $$
BEGIN
  CREATE ROLE vestibule_app NOLOGIN;
EXCEPTION WHEN duplicate_object OR unique_violation THEN
  NULL; -- roles are cluster-wide: another database of this cluster made it already
END $$;

GRANT USAGE ON SCHEMA public TO vestibule_app;
GRANT SELECT, INSERT, UPDATE ON workspaces, staff_members, programs, entries, signup_receipts,
  intake_hours, invitations, owner_action_receipts, grants, early_access_content TO vestibule_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON rate_limit_counters TO vestibule_app;
GRANT SELECT, INSERT ON notices, audit_events, staff_admin_events TO vestibule_app;
GRANT SELECT ON refinery_schema_history TO vestibule_app;
