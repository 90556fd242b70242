-- Run as a superuser once the first `vestibule migrate` has created vestibule_app's
-- grants (deploy/sql/roles.sql explains why the owner needed CREATEROLE until then).
ALTER ROLE vestibule_owner NOCREATEROLE;
