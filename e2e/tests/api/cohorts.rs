//! Cohort codes (issue 14): multi-use codes an owner creates (shown once, only a digest
//! kept), lists with uses and revokes; a new user redeems one at the redemption route
//! after accepting the program's current notice, and gets an active entry and a grant.
//! Uses and seats stay exact under concurrency, on one instance and across two.

use crate::support::cohorts::cohort;
use crate::support::process::{vestibule, ApiProcess};
use crate::support::race::LockHolder;
use crate::support::{Caps, Owner, Recipient, TestApp, QUEUE_OF};
use shared::cohort::{canonical_code, CohortCodeState, CreatedCohortCode, RedeemReply};
use uuid::Uuid;

/// An open program with content and access on; returns its id.
async fn cohort_program(owner: &Owner, ws: Uuid, slug: &str, seats: i32) -> Uuid {
    let program = owner.program_with(ws, slug, Caps { seats, ..Default::default() }).await;
    owner.put_content(program, &format!("Private notes for {slug}")).await;
    owner.set_access_enabled(program, true).await;
    program
}

async fn grants_of(app: &TestApp, program: Uuid) -> i64 {
    app.scalar("SELECT count(*) FROM grants WHERE program_id = $1 AND active", &[&program]).await
}

#[tokio::test]
async fn a_created_code_is_shown_once_and_only_its_digest_is_kept() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let program = cohort_program(&owner, ws, "cohort-show", 100).await;

    let created = owner.try_create_cohort_code(program, &cohort("Launch partners", 25)).await;
    let CreatedCohortCode { cohort_code, code } = created.expect(201);
    let groups: Vec<&str> = code.split('-').collect();
    assert_eq!(groups.len(), 4, "{code}");
    assert!(groups.iter().all(|g| g.len() == 4));
    assert_eq!((cohort_code.max_uses, cohort_code.uses, cohort_code.state), (25, 0, CohortCodeState::Active));

    // The list and the single read carry everything but the code.
    let listed = owner.cohort_codes(program).await;
    assert_eq!(listed, vec![cohort_code.clone()]);
    let one = owner.try_cohort_code(program, cohort_code.id).await;
    assert!(!one.text.contains(&code) && !one.text.contains(&canonical_code(&code).unwrap()));
    // The table holds the SHA-256 of the canonical text, nothing else of the code.
    let canonical = canonical_code(&code).unwrap();
    let stored: i64 = app
        .scalar("SELECT count(*) FROM cohort_codes WHERE code_sha256 = sha256(convert_to($1, 'UTF8'))", &[&canonical])
        .await;
    assert_eq!(stored, 1);
    let events: Vec<String> = app
        .column("SELECT event_type FROM audit_events WHERE program_id = $1 ORDER BY id DESC LIMIT 1", &[&program])
        .await;
    assert_eq!(events, ["cohort_code_created"]);
}

#[tokio::test]
async fn bounds_and_expiry_are_checked_and_strangers_get_the_uniform_404() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let program = cohort_program(&owner, ws, "cohort-bounds", 100).await;
    for (max_uses, code) in [(0, "invalid_max_uses"), (10_001, "invalid_max_uses")] {
        owner.try_create_cohort_code(program, &cohort("Partners", max_uses)).await.expect_error(400, code);
    }
    owner.try_create_cohort_code(program, &cohort("", 5)).await.expect_error(400, "invalid_label");
    owner.try_create_cohort_code(program, &cohort("Tab\there", 5)).await.expect_error(400, "invalid_label");
    let mut too_late = cohort("Partners", 5);
    too_late.expires_at = crate::support::invitations::in_days(15); // the program allows 14
    owner.try_create_cohort_code(program, &too_late).await.expect_error(409, "expiry_out_of_range");
    let mut past = cohort("Partners", 5);
    past.expires_at = crate::support::invitations::in_days(-1);
    owner.try_create_cohort_code(program, &past).await.expect_error(409, "expiry_out_of_range");
    owner.try_create_cohort_code(program, &cohort("Partners", 10_000)).await.assert(201);

    let stranger = app.as_owner(app.user("stranger@example.com").await);
    let created = owner.create_cohort_code(program, 5).await;
    stranger.try_create_cohort_code(program, &cohort("Mine", 5)).await.expect_error(404, "not_found");
    stranger.get(&format!("/api/owner/programs/{program}/cohort-codes")).await.expect_error(404, "not_found");
    stranger.try_revoke_cohort_code(program, created.cohort_code.id).await.expect_error(404, "not_found");
    owner.try_cohort_code(program, Uuid::new_v4()).await.expect_error(404, "not_found");
}

#[tokio::test]
async fn a_new_user_accepts_the_notice_and_gets_an_active_entry_and_a_grant() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let program = cohort_program(&owner, ws, "cohort-join", 100).await;
    let created = owner.create_cohort_code(program, 3).await;
    let rita = app.recipient("rita@example.com").await;

    // Typed the forgiving way: lower case, no dashes. The first answer is the notice,
    // and nothing is written until it is accepted.
    let typed = created.code.to_lowercase().replace('-', "");
    let step = rita.notice_step(&typed).await;
    assert_eq!(step.program_slug, "cohort-join");
    assert_eq!(step.notice, owner.program(program).await.notice.unwrap());
    let raw = rita.try_redeem(&typed).await.json();
    assert_eq!(raw["state"], "notice_required");
    assert_eq!(app.scalar::<i64>("SELECT count(*) FROM entries", &[]).await, 0);
    // Ticking the box for an older version shows the current notice again.
    let newer = owner.publish_notice(program).await;
    let again: RedeemReply = rita.try_redeem_accepting(&typed, step.notice.version).await.expect(200);
    assert!(matches!(again, RedeemReply::NoticeRequired(ref s) if s.notice.version == newer.version));
    // `permission: false` is no acceptance.
    let refused = serde_json::json!({"code": typed, "noticeVersion": newer.version, "permission": false});
    assert_eq!(rita.post("/api/me/invitations/redeem", &refused).await.json()["state"], "notice_required");

    let r = rita.try_redeem_accepting(&typed, newer.version).await;
    assert_eq!(r.json(), serde_json::json!({"programSlug": "cohort-join", "state": "active"}));
    assert_eq!(rita.early_access("cohort-join").await.body, "Private notes for cohort-join");
    let status = rita.get("/api/me/waitlist/cohort-join").await.json();
    assert_eq!((status["state"].as_str(), status["noticeVersion"].as_i64()), (Some("active"), Some(2)));

    let row = app
        .row(
            "SELECT e.state, e.source, n.version, e.permission_at = e.created_at, g.clerk_user_id, g.invitation_id IS NULL, \
             c.uses FROM entries e JOIN notices n ON n.id = e.notice_id JOIN grants g ON g.entry_id = e.id \
             JOIN cohort_codes c ON c.id = g.cohort_code_id WHERE e.program_id = $1",
            &[&program],
        )
        .await;
    assert_eq!((row.get::<_, &str>(0), row.get::<_, &str>(1), row.get::<_, i32>(2)), ("active", "cohort", 2));
    assert!(row.get::<_, bool>(3));
    assert_eq!(row.get::<_, &str>(4), rita.user_id);
    assert!(row.get::<_, bool>(5));
    assert_eq!(row.get::<_, i32>(6), 1);
    let events: Vec<String> = app
        .column(
            "SELECT event_type FROM audit_events WHERE program_id = $1 AND entry_id IS NOT NULL ORDER BY id",
            &[&program],
        )
        .await;
    assert_eq!(events, ["signup", "redeemed"]);
    let listed = owner.cohort_codes(program).await;
    assert_eq!((listed[0].uses, listed[0].state), (1, CohortCodeState::Active));

    // The owner's queue shows the entry like any other; a withdrawal ends the grant.
    rita.withdraw("cohort-join").await;
    rita.try_early_access("cohort-join").await.assert(404);
    let out = vestibule(&app.db_url, &["verify"], &[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
}

#[tokio::test]
async fn every_failure_is_the_same_404_as_an_invitation_code() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let expected = app.not_found_text().await;
    let program = cohort_program(&owner, ws, "cohort-fail", 2).await;
    let code = owner.create_cohort_code(program, 2).await.code;

    // An unknown code of the right shape.
    let rita = app.recipient("rita@example.com").await;
    rita.try_redeem("K7QF-2MXP-9TRD-A4HW").await.assert_exactly(404, &expected);
    // A user who is already on the waitlist of the program.
    app.signup("cohort-fail", "wanda@example.com").await;
    let wanda = app.recipient("wanda@example.com").await;
    wanda.try_redeem(&code).await.assert_exactly(404, &expected);
    // A user without a verified email.
    let uma = app.recipient("uma@example.com").await;
    let email = app.clerk.email_id(&uma.user_id, "uma@example.com").await;
    app.clerk.set_verified(&email, false).await;
    uma.try_redeem(&code).await.assert_exactly(404, &expected);
    // One use per user: a second time, even accepting again, is the same 404.
    rita.redeem_cohort(&code).await;
    rita.try_redeem_accepting(&code, 1).await.assert_exactly(404, &expected);
    // Seats: one is left; an issued invitation takes it, so the code's second use has none.
    let entry = owner.selected(program, "cohort-fail", "ivy@example.com").await;
    owner.issue(program, entry).await;
    let sam = app.recipient("sam@example.com").await;
    sam.try_redeem_accepting(&code, 1).await.assert_exactly(404, &expected);

    // Used up, expired, revoked: each the same 404.
    let program2 = cohort_program(&owner, ws, "cohort-fail-2", 100).await;
    let once = owner.create_cohort_code(program2, 1).await.code;
    sam.redeem_cohort(&once).await;
    app.recipient("tom@example.com").await.try_redeem(&once).await.assert_exactly(404, &expected);
    let lapsed = owner.create_cohort_code(program2, 5).await;
    app.exec(
        "UPDATE cohort_codes SET created_at = clock_timestamp() - interval '2 days', \
         expires_at = clock_timestamp() - interval '1 second' WHERE id = $1",
        &[&lapsed.cohort_code.id],
    )
    .await;
    let tom = app.recipient("tom2@example.com").await;
    tom.try_redeem(&lapsed.code).await.assert_exactly(404, &expected);
    let revoked = owner.create_cohort_code(program2, 5).await;
    owner.try_revoke_cohort_code(program2, revoked.cohort_code.id).await.assert(200);
    tom.try_redeem(&revoked.code).await.assert_exactly(404, &expected);
    // Malformed text is neither kind of code: 400, as before.
    tom.try_redeem("K7QF-2MXP-9TRD-A4H").await.expect_error(400, "invalid_code");

    assert_eq!(grants_of(&app, program).await, 1);
    assert_eq!(grants_of(&app, program2).await, 1);
}

#[tokio::test]
async fn revoking_stops_further_uses_keeps_grants_and_is_audited_once() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let program = cohort_program(&owner, ws, "cohort-revoke", 100).await;
    let created = owner.create_cohort_code(program, 5).await;
    let rita = app.recipient("rita@example.com").await;
    rita.redeem_cohort(&created.code).await;

    let id = created.cohort_code.id;
    let revoked: shared::cohort::CohortCode = owner.try_revoke_cohort_code(program, id).await.expect(200);
    assert_eq!((revoked.state, revoked.uses), (CohortCodeState::Revoked, 1));
    assert!(revoked.revoked_at.is_some());
    let again: shared::cohort::CohortCode = owner.try_revoke_cohort_code(program, id).await.expect(200);
    assert_eq!(again, revoked);
    app.recipient("sam@example.com").await.try_redeem(&created.code).await.assert(404);
    assert_eq!(rita.early_access("cohort-revoke").await.body, "Private notes for cohort-revoke");
    let n: i64 = app
        .scalar(
            "SELECT count(*) FROM audit_events WHERE program_id = $1 AND event_type = 'cohort_code_revoked'",
            &[&program],
        )
        .await;
    assert_eq!(n, 1);
}

/// 50 users redeem a 10-use code at once through `instances` (round robin): exactly 10
/// grants, 10 uses, and 40 times the uniform 404.
/// A use's locks and reads go out as one pipeline and its writes as another
/// (`db::cohorts`), yet it still waits at the program row before it locks the code (the
/// one global order), on the server's first use and on a later one alike; then it writes
/// everything a use writes.
#[tokio::test]
async fn a_use_waits_at_the_program_row_before_locking_its_code() {
    let app = TestApp::spawn().await;
    for slug in ["cohort-order-1", "cohort-order-2"] {
        let (owner, ws) = app.owner(&format!("owner-{slug}@example.com")).await;
        let program = cohort_program(&owner, ws, slug, 100).await;
        let created = owner.create_cohort_code(program, 3).await;
        let rita = app.recipient(&format!("rita-{slug}@example.com")).await;
        let hold = LockHolder::lock(&app.db_url, "programs", program).await;
        let (redeemed, ()) = tokio::join!(rita.try_redeem_accepting(&created.code, 1), async {
            hold.wait_for_waiters(1).await;
            let probe = crate::support::db::connect(&app.db_url).await;
            probe.batch_execute("BEGIN").await.unwrap();
            let sql = "SELECT 1 FROM cohort_codes WHERE id = $1 FOR UPDATE NOWAIT";
            let locked = probe.execute(sql, &[&created.cohort_code.id]).await;
            assert!(locked.is_ok(), "{slug}: the code was locked before the program row: {locked:?}");
            probe.batch_execute("ROLLBACK").await.unwrap();
            hold.release().await;
        });
        assert_eq!(redeemed.json(), serde_json::json!({"programSlug": slug, "state": "active"}));
        let row = app
            .row(
                &format!(
                    "SELECT (SELECT uses FROM cohort_codes WHERE program_id = $1), \
                            {QUEUE_OF}, \
                            (SELECT count(*) FROM entries e JOIN grants g ON g.entry_id = e.id \
                               JOIN entry_answers a ON a.entry_id = e.id \
                             WHERE e.program_id = $1 AND e.state = 'active' AND g.active), \
                            (SELECT string_agg(event_type, ',' ORDER BY id) FROM audit_events \
                             WHERE program_id = $1 AND entry_id IS NOT NULL)"
                ),
                &[&program],
            )
            .await;
        let got: (i32, i64, i64, String) = (row.get(0), row.get(1), row.get(2), row.get(3));
        assert_eq!(got, (1, 1, 1, "signup,redeemed".to_owned()), "{slug}");
    }
    let out = vestibule(&app.db_url, &["verify"], &[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
}

async fn fifty_race_for_ten(app: &TestApp, instances: &[TestApp], slug: &str) {
    let (owner, ws) = app.owner(&format!("owner-{slug}@example.com")).await;
    let program = cohort_program(&owner, ws, slug, 100).await;
    let created = owner.create_cohort_code(program, 10).await;
    let mut users: Vec<Recipient> = Vec::new();
    for i in 0..50 {
        let user = app.user(&format!("racer{i}-{slug}@example.com")).await;
        users.push(instances[i % instances.len()].as_recipient(user));
    }
    let replies = futures::future::join_all(users.iter().map(|u| u.try_redeem_accepting(&created.code, 1))).await;
    let statuses: Vec<u16> = replies.iter().map(|r| r.status.as_u16()).collect();
    assert_eq!(statuses.iter().filter(|s| **s == 200).count(), 10, "{statuses:?}");
    assert_eq!(statuses.iter().filter(|s| **s == 404).count(), 40, "{statuses:?}");
    assert_eq!(grants_of(app, program).await, 10);
    let uses: i32 = app.scalar("SELECT uses FROM cohort_codes WHERE id = $1", &[&created.cohort_code.id]).await;
    assert_eq!(uses, 10);
    let entries: i64 = app.scalar("SELECT count(*) FROM entries WHERE program_id = $1", &[&program]).await;
    assert_eq!(entries, 10);
    let out = vestibule(&app.db_url, &["verify"], &[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
}

#[tokio::test]
async fn fifty_parallel_redemptions_of_a_ten_use_code_grant_exactly_ten() {
    let app = TestApp::spawn_with(|s| s.redeem_failures_per_15min = 1000).await;
    fifty_race_for_ten(&app, std::slice::from_ref(&app), "cohort-race-one").await;
}

#[tokio::test]
async fn fifty_parallel_redemptions_across_two_instances_grant_exactly_ten() {
    let app = TestApp::spawn_with(|s| s.redeem_failures_per_15min = 1000).await;
    let env = [("REDEEM_FAILURES_PER_15MIN", "1000")];
    let a = ApiProcess::start(&app.db_url, &app.clerk, &env).await;
    let b = ApiProcess::start(&app.db_url, &app.clerk, &env).await;
    fifty_race_for_ten(&app, &[app.at(&a.base), app.at(&b.base)], "cohort-race-two").await;
}

#[tokio::test]
async fn a_cohort_use_is_a_grant_created_event_and_its_grant_is_revoked_like_any_other() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    owner.create_webhook(ws, "http://127.0.0.1:9/hook").await;
    let program = cohort_program(&owner, ws, "cohort-events", 100).await;
    let created = owner.create_cohort_code(program, 3).await;
    let rita = app.recipient("rita@example.com").await;
    rita.redeem_cohort(&created.code).await;

    // The outbox sees an entry and a grant, like an invitation's redemption.
    let grant: Uuid = app.scalar("SELECT id FROM grants WHERE program_id = $1", &[&program]).await;
    let events: Vec<String> =
        app.column("SELECT event_type FROM outbox_events WHERE program_id = $1", &[&program]).await;
    assert!(events.iter().any(|t| t == "entry.created"), "{events:?}");
    // Issue 26 item 8 (failed before: `waiting`): the entry is created active, and says so;
    // a public signup's entry still says `waiting`.
    app.signup("cohort-events", "walt@example.com").await;
    let states: Vec<String> = app
        .column(
            "SELECT payload->'data'->>'state' FROM outbox_events WHERE program_id = $1 AND event_type = 'entry.created' ORDER BY audit_event_id",
            &[&program],
        )
        .await;
    assert_eq!(states, ["active", "waiting"]);
    let announced: Vec<String> = app
        .column(
            "SELECT payload->'data'->>'grantId' FROM outbox_events WHERE program_id = $1 AND event_type = 'grant.created'",
            &[&program],
        )
        .await;
    assert_eq!(announced, [grant.to_string()]);

    // The owner's entry detail shows the grant and no invitation; revoking it ends access.
    let entry = app.entry_id(program, "rita@example.com").await;
    let detail: shared::api::EntryDetail =
        owner.get(&format!("/api/owner/programs/{program}/entries/{entry}")).await.expect(200);
    assert!(detail.invitations.is_empty());
    assert_eq!(detail.grant.map(|g| (g.id, g.active)), Some((grant, true)));
    owner.revoke_grant(grant).await;
    rita.try_early_access("cohort-events").await.assert(404);
    let revoked: i64 = app
        .scalar(
            "SELECT count(*) FROM outbox_events WHERE program_id = $1 AND event_type = 'grant.revoked'",
            &[&program],
        )
        .await;
    assert_eq!(revoked, 1);
}

/// The caller's own entry is found by address, never by walking the program's entries: a
/// cohort use (whose caller has no entry yet) and a withdrawal both look it up under the
/// program lock, on a statement planned once per connection. Planned while the program was
/// new (the statistics know only other programs' entries; autovacuum's next analyze is
/// held off here) and run when it has thousands of entries, two lookups — one
/// for an address with no entry, one for three addresses of which two have one — must
/// touch a handful of pages, not a page per entry.
#[tokio::test]
async fn the_own_entry_lookup_reads_a_few_pages_however_many_entries_the_program_has() {
    use crate::support::db;
    const ENTRIES: i64 = 20_000;
    let (owner_url, admin, program, notice) = program_in_fresh_database("lookup").await;
    // Other programs' entries, analyzed; then no analyze while this program grows, so the
    // statistics know nothing of its entries — as between two of autovacuum's analyzes.
    admin
        .batch_execute(
            "INSERT INTO programs (workspace_id, public_slug, purpose, queue_cap, hourly_cap, seat_cap, max_invite_days) \
               SELECT workspace_id, 'other-' || n, 'others', 100000, 100000, 100000, 7 \
               FROM programs, generate_series(1, 16) n WHERE public_slug = 'lookup'; \
             INSERT INTO notices (program_id, version, purpose, contact_text, retention_text) \
               SELECT id, 1, 'p', 'c', 'r' FROM programs WHERE public_slug LIKE 'other-%'; \
             INSERT INTO entries (program_id, email_key, notice_id, permission_at, state, created_at, updated_at) \
               SELECT n.program_id, 'o' || g || '-' || n.program_id || '@example.com', n.id, now(), 'waiting', now(), now() \
               FROM notices n JOIN programs p ON p.id = n.program_id AND p.public_slug LIKE 'other-%', \
                 generate_series(1, 500) g; \
             ANALYZE entries; ALTER TABLE entries SET (autovacuum_enabled = false)",
        )
        .await
        .unwrap();

    let pool = api::db::pool(&db::app_url(&owner_url).await, 1).unwrap();
    let mut client = pool.get().await.unwrap();
    let nobody = ["nobody@example.com"];
    // Past the five custom plans: the connection now runs its cached generic plan.
    for _ in 0..6 {
        let tx = client.transaction().await.unwrap();
        assert!(api::db::entries::lock_own(&tx, program, &nobody).await.unwrap().is_none());
        tx.rollback().await.unwrap();
    }
    admin
        .execute(
            "INSERT INTO entries (program_id, email_key, notice_id, permission_at, state, created_at, updated_at) \
             SELECT $1, 'e' || n || '@example.com', $2, now(), 'waiting', now() + n * interval '1 ms', now() \
             FROM generate_series(1, $3::int8) n",
            &[&program, &notice, &ENTRIES],
        )
        .await
        .unwrap();

    let tx = client.transaction().await.unwrap();
    assert!(api::db::entries::lock_own(&tx, program, &nobody).await.unwrap().is_none());
    let mine = ["x@example.com", "e19999@example.com", "e17@example.com"];
    let found = api::db::entries::lock_own(&tx, program, &mine).await.unwrap().expect("the earliest of the three");
    assert_eq!(found.email, "e17@example.com");
    let buffers = crate::support::pages_read(&tx, &["entries"]).await;
    tx.rollback().await.unwrap();
    assert!(buffers < 100, "two lookups over {ENTRIES} entries read {buffers} pages");
}

/// Issue 28: seats in use (active grants plus issued, unexpired invitations), decided on
/// by every issue and cohort-code use under the program lock, read the kept count of the
/// program's active entries, not every active grant: a few pages with 20,000 grants. The
/// figure is the grants' own: a revoked grant and an expired or redeemed invitation hold
/// no seat; an issued, unexpired one does.
#[tokio::test]
async fn seats_in_use_read_a_few_pages_however_many_grants_the_program_holds() {
    use crate::support::db;
    const GRANTS: i64 = 20_000;
    let (owner_url, admin, program, notice) = program_in_fresh_database("seats").await;
    // GRANTS active entries, each with its redeemed invitation and active grant; one revoked
    // entry whose grant is inactive; three invited entries: two issued and unexpired, one
    // issued but lapsed.
    admin
        .batch_execute("ALTER TABLE grants SET (autovacuum_enabled = false); ALTER TABLE invitations SET (autovacuum_enabled = false)")
        .await
        .unwrap();
    admin
        .execute(
            "WITH e AS (INSERT INTO entries (program_id, email_key, notice_id, permission_at, state, created_at, updated_at) \
                SELECT $1, 'g' || n || '@example.com', $2, now(), CASE WHEN n <= $3::int8 THEN 'active' ELSE 'revoked' END, now(), now() \
                FROM generate_series(1, $3::int8 + 1) n RETURNING id, state, email_key), \
             i AS (INSERT INTO invitations (program_id, entry_id, token_sha256, state, issued_at, expires_at, \
                     delivery_recorded_at, delivery_channel, terminal_at) \
                SELECT $1, id, sha256(convert_to(email_key, 'UTF8')), 'redeemed', now() - interval '1 day', \
                       now() + interval '1 day', now(), 'email', now() FROM e RETURNING id, entry_id) \
             INSERT INTO grants (program_id, entry_id, invitation_id, clerk_user_id, active, granted_at, revoked_at) \
             SELECT $1, i.entry_id, i.id, 'user_' || e.email_key, e.state = 'active', now(), \
                    CASE WHEN e.state = 'active' THEN NULL ELSE now() END \
             FROM i JOIN e ON e.id = i.entry_id",
            &[&program, &notice, &GRANTS],
        )
        .await
        .unwrap();
    admin
        .execute(
            "WITH e AS (INSERT INTO entries (program_id, email_key, notice_id, permission_at, state, created_at, updated_at) \
                SELECT $1, 'i' || n || '@example.com', $2, now(), 'invited', now(), now() \
                FROM generate_series(1, 3) n RETURNING id, email_key) \
             INSERT INTO invitations (program_id, entry_id, token_sha256, state, issued_at, expires_at) \
             SELECT $1, id, sha256(convert_to(email_key, 'UTF8')), 'issued', now() - interval '2 days', \
                    CASE WHEN email_key LIKE 'i1@%' THEN now() - interval '1 day' ELSE now() + interval '1 day' END FROM e",
            &[&program, &notice],
        )
        .await
        .unwrap();

    let pool = api::db::pool(&db::app_url(&owner_url).await, 1).unwrap();
    let mut client = pool.get().await.unwrap();
    let tx = client.transaction().await.unwrap();
    let now: chrono::DateTime<chrono::Utc> = tx.query_one("SELECT now()", &[]).await.unwrap().get(0);
    let counted: i64 = tx
        .query_one(
            "SELECT (SELECT count(*) FROM grants WHERE program_id = $1 AND active) \
                  + (SELECT count(*) FROM invitations WHERE program_id = $1 AND state = 'issued' AND expires_at > $2)",
            &[&program, &now],
        )
        .await
        .unwrap()
        .get(0);
    let before = crate::support::pages_read(&tx, &["grants", "invitations", "program_entry_counts"]).await;
    let in_use = api::db::invitations::seats_in_use(&tx, program, now).await.unwrap();
    let read = crate::support::pages_read(&tx, &["grants", "invitations", "program_entry_counts"]).await - before;
    tx.rollback().await.unwrap();
    assert_eq!(counted, GRANTS + 2, "the fixture: the active grants and the two unexpired issued invitations");
    assert_eq!(in_use, counted);
    assert!(read < 20, "seats in use with {GRANTS} active grants read {read} pages");
}

/// A fresh database (its owner's URL and an owner connection) holding one workspace, one
/// program `slug` with room for 100,000 and its notice, written directly (the page-count
/// tests below fill it by SQL); answers the program and notice ids.
async fn program_in_fresh_database(slug: &str) -> (String, tokio_postgres::Client, Uuid, Uuid) {
    use crate::support::db;
    let owner_url = db::fresh_database().await;
    let admin = db::connect(&owner_url).await;
    let row = admin
        .query_one(
            "WITH w AS (INSERT INTO workspaces (name) VALUES ($1) RETURNING id), \
             p AS (INSERT INTO programs (workspace_id, public_slug, purpose, queue_cap, hourly_cap, seat_cap, max_invite_days) \
                   SELECT id, $1, 'page counts', 100000, 100000, 100000, 7 FROM w RETURNING id) \
             INSERT INTO notices (program_id, version, purpose, contact_text, retention_text) \
             SELECT id, 1, 'p', 'c', 'r' FROM p RETURNING program_id, id",
            &[&slug],
        )
        .await
        .unwrap();
    (owner_url, admin, row.get(0), row.get(1))
}
