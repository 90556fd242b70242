-- Issue 26 item 1: the "On grant, in Clerk" setting is replaced by deleting the program's
-- row and inserting the new one (db::clerk_sync::set; "off" is no row), but V31 granted the
-- app role only SELECT, INSERT and UPDATE on it, so with the server logged in as a
-- member of vestibule_app (as in production) every save answered 500 (SQLSTATE 42501).
-- The table is a setting, not history: the app may delete its rows.
GRANT DELETE ON program_clerk_sync TO vestibule_app;
