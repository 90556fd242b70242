-- V130's per-attempt `record_signup_answers` has no caller since V131: the admission
-- sends the whole batch's answers with `record_batch_answers` in its own pipeline, and no
-- other writer creates waitlist entries with answers (a cohort redemption inserts its
-- entry's answers itself, `db::cohorts::record_use`). One way to store answers, not two.
DROP FUNCTION record_signup_answers(uuid, uuid, jsonb, boolean);
