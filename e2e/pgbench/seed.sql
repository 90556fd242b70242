-- Seeds a scratch database migrated with `vestibule migrate` for the pgbench signup
-- scripts: one workspace and 16 open programs with a notice, caps at the schema's
-- maximum. Ids are fixed so the scripts can name them without a lookup round trip:
-- program n is 00000000-0000-4000-8000-00000000000n (n = 1..16, in hex padding),
-- its notice 00000000-0000-4000-9000-00000000000n.
INSERT INTO workspaces (id, name) VALUES ('00000000-0000-4000-a000-000000000001', 'pgbench');
INSERT INTO programs (id, workspace_id, public_slug, purpose, signup_open, queue_cap, hourly_cap, seat_cap, max_invite_days)
  SELECT ('00000000-0000-4000-8000-' || lpad(g::text, 12, '0'))::uuid, '00000000-0000-4000-a000-000000000001',
         'pgbench-' || g, 'pgbench', false, 100000, 100000, 100000, 30
  FROM generate_series(1, 16) g;
INSERT INTO notices (id, program_id, version, purpose, contact_text, retention_text)
  SELECT ('00000000-0000-4000-9000-' || lpad(g::text, 12, '0'))::uuid,
         ('00000000-0000-4000-8000-' || lpad(g::text, 12, '0'))::uuid, 1, 'pgbench', 'pgbench', 'pgbench'
  FROM generate_series(1, 16) g;
UPDATE programs p SET current_notice_id = n.id, current_notice_version = 1, signup_open = true
  FROM notices n WHERE n.program_id = p.id;
