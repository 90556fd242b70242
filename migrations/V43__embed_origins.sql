-- Issue 15 (b): the embeddable signup form. programs.embed_origins lists the exact
-- origins (https in production; see shared::edge::parse_embed_origin) that may frame
-- `/embed/waitlist/{slug}`: its Content-Security-Policy says `frame-ancestors` and exactly
-- these, every other page keeps `frame-ancestors 'none'`. At most 10; empty (the default)
-- means nobody may frame the form.
ALTER TABLE programs
  ADD COLUMN embed_origins text[] NOT NULL DEFAULT '{}'
    CONSTRAINT programs_embed_origins_count CHECK (cardinality(embed_origins) <= 10);
