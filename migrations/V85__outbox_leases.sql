-- Issue 26 item 3: one grant's Clerk deliveries never overlap. The claim leaves a
-- clerk_sync delivery alone while another delivery of the same grant is leased, which it
-- asks of the leased rows only: this index holds them (a lease's claim_id is cleared when
-- its outcome is recorded, so few rows carry one). The exact serialization is a session
-- advisory lock per grant taken by the handler (api/src/outbox/clerk_sync.rs); advisory
-- lock functions are PUBLIC, so vestibule_app needs no grant for them.
CREATE INDEX outbox_deliveries_leased_idx ON outbox_deliveries (claimed_until) WHERE claim_id IS NOT NULL;
