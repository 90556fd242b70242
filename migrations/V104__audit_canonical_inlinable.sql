-- Issue 28 (profile of `admit_signups`): the audit chain's canonical bytes are computed
-- by SQL functions that PostgreSQL never inlined. `audit_canonical` and
-- `audit_canonical_text` were declared IMMUTABLE, but their bodies call STABLE functions
-- (`extract(epoch FROM timestamptz)`, `convert_to`), and the planner refuses to inline an
-- IMMUTABLE SQL function whose body is not immutable. So every chained event ran four SQL
-- functions through the SQL-function executor, which parses and plans each body again in
-- every transaction (≈ 10 % of a lone signup's server time under pgbench, and under the
-- program lock). Declared STABLE — what their bodies are — they inline into the calling
-- expression (`admit_signups`' chain loop, `audit_chain_append`, V50's backfill), which
-- PL/pgSQL plans once per session.
--
-- The bodies are unchanged, so the canonical bytes and every hash are the same:
-- `vestibule verify` and the existing chains agree. Nothing indexes or constrains on these
-- functions (they are called only from PL/pgSQL), so nothing needs IMMUTABLE.
ALTER FUNCTION audit_canonical(bigint, uuid, bigint, bigint, uuid, text, uuid, text, timestamptz, jsonb) STABLE;
ALTER FUNCTION audit_canonical_text(text) STABLE;
