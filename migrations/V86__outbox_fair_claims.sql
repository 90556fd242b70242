-- Issue 26 item 4: one workspace cannot starve the others.
--
-- * Each delivery knows its workspace (copied from its event when it is inserted, by the
--   BEFORE INSERT trigger below, whatever inserts it), so the internal lane (Clerk calls)
--   can take the oldest due delivery of *each* workspace in turn. Finished deliveries of
--   older releases keep NULL: only pending rows are ever claimed, and those are filled
--   here. No foreign key: the value is derived from the event's, and a key would add a
--   lock on the workspace row to every enqueue.
-- * A webhook endpoint carries the lease of its one delivery in flight (lease_claim,
--   leased_until): the claim locks the endpoint row and re-checks it, so two instances
--   never send to one endpoint at once, deliveries to an endpoint go out one at a time,
--   oldest due first, and a receiver that never answers holds only its own queue.
ALTER TABLE outbox_deliveries ADD COLUMN workspace_id uuid;
UPDATE outbox_deliveries d SET workspace_id = e.workspace_id
  FROM outbox_events e WHERE e.id = d.event_id AND d.state = 'pending';

CREATE FUNCTION outbox_delivery_workspace() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.workspace_id IS NULL THEN
    SELECT workspace_id INTO NEW.workspace_id FROM outbox_events WHERE id = NEW.event_id;
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER outbox_delivery_workspace BEFORE INSERT ON outbox_deliveries
  FOR EACH ROW EXECUTE FUNCTION outbox_delivery_workspace();

ALTER TABLE webhook_endpoints ADD COLUMN lease_claim uuid, ADD COLUMN leased_until timestamptz;

-- Each endpoint's next due delivery; each workspace's next due internal delivery; the
-- endpoints in flight (counted per workspace against its share).
CREATE INDEX outbox_deliveries_endpoint_due_idx ON outbox_deliveries (endpoint_id, next_attempt_at, id)
  WHERE state = 'pending' AND endpoint_id IS NOT NULL;
CREATE INDEX outbox_deliveries_internal_due_idx ON outbox_deliveries (workspace_id, next_attempt_at, id)
  WHERE state = 'pending' AND endpoint_id IS NULL;
CREATE INDEX webhook_endpoints_leased_idx ON webhook_endpoints (workspace_id) WHERE leased_until IS NOT NULL;
