-- The event types audit_events accepts, as rows instead of a CHECK list: a feature that
-- adds an event type inserts its name here in its own migration, so parallel features
-- never rewrite each other's list (the CHECK of V1/V5 had to be dropped and re-created
-- whole for each addition). The names are shared::states::EventType's.
CREATE TABLE audit_event_types (
  name text PRIMARY KEY CONSTRAINT audit_event_types_name CHECK (name ~ '^[a-z][a-z_]{0,39}$')
);

INSERT INTO audit_event_types (name) VALUES
  ('notice_published'), ('signup'), ('selected'), ('declined'), ('invite_issued'), ('delivery_recorded'),
  ('invite_revoked'), ('invite_expired'), ('redeemed'), ('grant_revoked'), ('withdrawn'), ('content_updated'),
  ('program_changed'), ('redacted');

ALTER TABLE audit_events DROP CONSTRAINT audit_event_type;
ALTER TABLE audit_events ADD CONSTRAINT audit_event_type
  FOREIGN KEY (event_type) REFERENCES audit_event_types (name);

GRANT SELECT ON audit_event_types TO vestibule_app;
