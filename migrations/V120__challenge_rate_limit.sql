-- Issue 30 item 2: the signup challenge is counted per client address like the signup
-- itself (its own scope, so the two quotas stay apart).
ALTER TABLE rate_limit_counters DROP CONSTRAINT rate_limit_scope;
ALTER TABLE rate_limit_counters ADD CONSTRAINT rate_limit_scope
  CHECK (scope IN ('signup_addr', 'challenge_addr', 'redeem_user', 'redeem_addr'));
