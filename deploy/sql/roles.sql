-- Vestibule's database roles and database (README "Production"). Run once, on the
-- primary, as a superuser, with the passwords as psql variables:
--
--   psql -v ON_ERROR_STOP=1 -v owner_password=… -v app_password=… \
--        -v backup_password=… -v replica_password=… -f deploy/sql/roles.sql
--
-- then `vestibule migrate` as vestibule_owner, then deploy/sql/after-first-migrate.sql.
-- e2e/tests/deploy runs exactly these steps before its failover test.
--
--   vestibule_owner    owns the database and its tables; runs `vestibule migrate`.
--   vestibule_app      NOLOGIN; the privileges the server needs (granted by the
--                      migrations): no UPDATE or DELETE of append-only tables, no DDL.
--   vestibule_login    the server's login (DATABASE_URL); a member of vestibule_app.
--   vestibule_backup   pg_dump and `vestibule verify`: reads everything, writes nothing.
--   vestibule_replica  the standby's streaming-replication login.

-- CREATEROLE only until the first migration has run: migration V2 creates
-- vestibule_app if it is missing, and PostgreSQL checks that privilege before it looks
-- whether the role exists. after-first-migrate.sql takes it back.
CREATE ROLE vestibule_owner LOGIN CREATEROLE PASSWORD :'owner_password';
CREATE DATABASE vestibule OWNER vestibule_owner;
REVOKE ALL ON DATABASE vestibule FROM PUBLIC;

CREATE ROLE vestibule_app NOLOGIN;
GRANT CONNECT ON DATABASE vestibule TO vestibule_app;
CREATE ROLE vestibule_login LOGIN PASSWORD :'app_password' IN ROLE vestibule_app;

CREATE ROLE vestibule_backup LOGIN PASSWORD :'backup_password' IN ROLE pg_read_all_data;
GRANT CONNECT ON DATABASE vestibule TO vestibule_backup;

CREATE ROLE vestibule_replica LOGIN REPLICATION PASSWORD :'replica_password';

\connect vestibule
-- Only the owner creates objects (PostgreSQL 15's default; older versions let anyone).
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
