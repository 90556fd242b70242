//! Redemption (issue 5): a code becomes a grant only for the recipient whose currently
//! verified email is the entry's, once, while everything around it still holds.

use crate::support::race::LockHolder;
use crate::support::{Invited, Owner, Recipient, TestApp};
use serde_json::json;
use shared::api::RedeemResponse;
use uuid::Uuid;

const EMAIL: &str = "rita@example.com";

async fn grants_of(app: &TestApp, program: Uuid) -> i64 {
    app.scalar("SELECT count(*) FROM grants WHERE program_id = $1", &[&program]).await
}

#[tokio::test]
async fn the_invited_recipient_redeems_once_and_reads_the_content() {
    let (app, owner, ws, rita) = TestApp::owner_and_recipient(EMAIL).await;
    let invited = owner.invited(ws, "beta-one", EMAIL).await;

    let r = rita.try_redeem(&invited.code).await;
    let redeemed: RedeemResponse = r.expect(200);
    assert_eq!(redeemed, RedeemResponse { program_slug: "beta-one".into(), state: shared::EntryState::Active });
    // The wire shape itself, pinned as raw JSON: a rename in `shared` must show here.
    assert_eq!(r.json(), json!({"programSlug": "beta-one", "state": "active"}));
    let content = rita.try_early_access("beta-one").await;
    assert_eq!(content.expect::<shared::api::EarlyAccessContent>(200).body, "Private notes for beta-one");
    assert_eq!(content.header("cache-control"), Some("private, no-store"));

    let row = app
        .row(
            "SELECT i.state, e.state, g.clerk_user_id, g.active FROM invitations i JOIN entries e ON e.id = i.entry_id \
             JOIN grants g ON g.invitation_id = i.id WHERE i.id = $1",
            &[&invited.invitation],
        )
        .await;
    assert_eq!(row.get::<_, &str>(0), "redeemed");
    assert_eq!(row.get::<_, &str>(1), "active");
    assert_eq!(row.get::<_, &str>(2), rita.user_id);
    assert!(row.get::<_, bool>(3));
    let events: Vec<String> =
        app.column("SELECT event_type FROM audit_events WHERE entry_id = $1 ORDER BY id", &[&invited.entry]).await;
    assert_eq!(events.last().map(String::as_str), Some("redeemed"));

    // A replay is the generic 404, and nothing changes.
    rita.try_redeem(&invited.code).await.assert_exactly(404, &app.not_found_text().await);
    assert_eq!(grants_of(&app, invited.program).await, 1);
}

#[tokio::test]
async fn every_failure_is_the_same_404() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let expected = app.not_found_text().await;
    let invited = owner.invited(ws, "beta-fail", EMAIL).await;

    // Another person, even signed in and verified.
    let mallory = app.recipient("mallory@example.com").await;
    mallory.try_redeem(&invited.code).await.assert_exactly(404, &expected);

    // The right address, but not verified on this account.
    let sneaky = app.recipient("sneaky@example.com").await;
    app.clerk.add_email(&sneaky.user_id, EMAIL, false).await;
    sneaky.try_redeem(&invited.code).await.assert_exactly(404, &expected);

    // An unknown code of the right shape.
    let rita = app.recipient(EMAIL).await;
    rita.try_redeem(&"A".repeat(43)).await.assert_exactly(404, &expected);

    // Nothing was granted along the way.
    assert_eq!(grants_of(&app, invited.program).await, 0);
}

#[tokio::test]
async fn malformed_codes_are_400_before_any_lookup() {
    let app = TestApp::spawn().await;
    let rita = app.recipient(EMAIL).await;
    app.clerk.users_unavailable(true).await;
    for code in ["", "short", &"A".repeat(44), &format!("{}=", "A".repeat(42)), &"*".repeat(43)] {
        rita.try_redeem(code).await.assert(400);
    }
    // A body with an unknown field: raw JSON, since `RedeemRequest` cannot hold it.
    rita.post("/api/me/invitations/redeem", &json!({"code": "x", "extra": 1})).await.assert(400);
}

#[tokio::test]
async fn a_code_without_a_delivery_record_does_not_redeem() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let program = owner.open_program(ws, "beta-nodeliv").await;
    let entry = owner.selected(program, "beta-nodeliv", EMAIL).await;
    let issued = owner.issue(program, entry).await;
    let code = issued.code.unwrap();
    let rita = app.recipient(EMAIL).await;
    rita.try_redeem(&code).await.assert(404);
    owner.record_delivery(issued.invitation.id).await;
    rita.redeem(&code).await;
}

#[tokio::test]
async fn expired_and_revoked_codes_do_not_redeem() {
    let (app, owner, ws, rita) = TestApp::owner_and_recipient(EMAIL).await;
    let invited = owner.invited(ws, "beta-exp", EMAIL).await;
    app.exec(
        "UPDATE invitations SET issued_at = clock_timestamp() - interval '2 days', expires_at = clock_timestamp() - interval '1 second' WHERE id = $1",
        &[&invited.invitation],
    )
    .await;
    rita.try_redeem(&invited.code).await.assert(404);

    let invited = owner.invited(ws, "beta-rev", EMAIL).await;
    owner.revoke_invitation(invited.invitation).await;
    rita.try_redeem(&invited.code).await.assert(404);
}

#[tokio::test]
async fn a_withdrawn_entry_cannot_redeem_and_withdrawal_closes_the_content() {
    let (_, owner, ws, rita) = TestApp::owner_and_recipient(EMAIL).await;
    let invited = owner.invited(ws, "beta-wd", EMAIL).await;
    rita.withdraw("beta-wd").await;
    rita.try_redeem(&invited.code).await.assert(404);

    let invited = owner.invited(ws, "beta-wd2", EMAIL).await;
    rita.redeem(&invited.code).await;
    rita.early_access("beta-wd2").await;
    rita.withdraw("beta-wd2").await;
    rita.try_early_access("beta-wd2").await.assert(404);
}

#[tokio::test]
async fn identity_provider_down_is_503_with_no_data() {
    let (app, owner, ws, rita) = TestApp::owner_and_recipient(EMAIL).await;
    let invited = owner.invited(ws, "beta-down", EMAIL).await;
    app.clerk.users_unavailable(true).await;
    rita.try_redeem(&invited.code).await.expect_error(503, "identity_unavailable");
    app.clerk.users_unavailable(false).await;
    rita.redeem(&invited.code).await;
    app.clerk.users_unavailable(true).await;
    let r = rita.try_early_access("beta-down").await;
    r.assert(503);
    assert!(!r.text.contains("Private notes"));
}

#[tokio::test]
async fn failed_attempts_are_rate_limited_per_account() {
    let app = TestApp::spawn_with(|s| s.redeem_failures_per_15min = 3).await;
    // Failures are counted in fixed 15-minute windows the server keeps: stay inside one.
    crate::support::clear_of_period_end(900, 20).await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let invited = owner.invited(ws, "beta-rl", EMAIL).await;
    let rita = app.recipient(EMAIL).await;
    for last in ["A", "Q", "g"] {
        rita.try_redeem(&format!("{}{last}", "B".repeat(42))).await.assert(404);
    }
    let r = rita.try_redeem(&invited.code).await;
    r.assert(429);
    assert!(!r.text.contains('3'), "the count is not revealed: {}", r.text);
    crate::support::assert_retry_after_is_the_windows_end(&r, 900);
    // Another account is not affected.
    let other = app.recipient("other@example.com").await;
    other.try_redeem(&format!("{}A", "C".repeat(42))).await.assert(404);
}

fn bogus_code(i: usize) -> String {
    format!("{:B<42}A", format!("x{i}"))
}

/// Issue 12, item 3: every attempt is counted before it is decided, so a parallel burst
/// of wrong codes gets exactly the allowance through and no more (before the fix, the
/// whole burst passed a check that counted only afterwards).
#[tokio::test]
async fn a_parallel_burst_of_wrong_codes_cannot_exceed_the_allowance() {
    let app = TestApp::spawn_with(|s| s.redeem_failures_per_15min = 3).await;
    crate::support::clear_of_period_end(900, 20).await;
    let rita = app.recipient(EMAIL).await;
    let codes: Vec<String> = (0..16).map(bogus_code).collect();
    let replies = futures::future::join_all(codes.iter().map(|code| rita.try_redeem(code))).await;
    let statuses: Vec<u16> = replies.iter().map(|r| r.status.as_u16()).collect();
    assert_eq!(statuses.iter().filter(|s| **s == 404).count(), 3, "{statuses:?}");
    assert_eq!(statuses.iter().filter(|s| **s == 429).count(), 13, "{statuses:?}");
}

/// Issue 12, item 3: an attempt that redeems is refunded — only failures use the allowance.
#[tokio::test]
async fn a_successful_redemption_uses_none_of_the_allowance() {
    let app = TestApp::spawn_with(|s| s.redeem_failures_per_15min = 2).await;
    crate::support::clear_of_period_end(900, 20).await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let invited = owner.invited(ws, "beta-refund", EMAIL).await;
    let rita = app.recipient(EMAIL).await;
    rita.redeem(&invited.code).await;
    rita.try_redeem(&bogus_code(1)).await.assert(404);
    rita.try_redeem(&bogus_code(2)).await.assert(404);
    crate::support::assert_retry_after_is_the_windows_end(&rita.try_redeem(&bogus_code(3)).await, 900);
}

/// The database never holds an active grant on a revoked invitation or a withdrawn entry.
async fn assert_invariants(app: &TestApp) {
    let bad: i64 = app
        .scalar(
            "SELECT count(*) FROM grants g JOIN invitations i ON i.id = g.invitation_id JOIN entries e ON e.id = g.entry_id \
             WHERE g.active AND (i.state <> 'redeemed' OR e.state <> 'active')",
            &[],
        )
        .await;
    assert_eq!(bad, 0);
}

/// A workspace with its own owner, `slug` invited for rita, and rita signed in; the
/// program row is locked so the two contenders of a race can queue behind it.
async fn race_setup(app: &TestApp, slug: &str) -> (Owner, Invited, Recipient, LockHolder) {
    let (owner, ws) = app.owner(&format!("owner-{slug}@example.com")).await;
    let invited = owner.invited(ws, slug, EMAIL).await;
    let rita = app.recipient(EMAIL).await;
    let hold = LockHolder::lock(&app.db_url, "programs", invited.program).await;
    (owner, invited, rita, hold)
}

#[tokio::test]
async fn revoke_versus_redeem_in_both_orders() {
    let app = TestApp::spawn().await;
    // Revoke queued first: it wins, the redemption finds nothing.
    let (owner, invited, rita, hold) = race_setup(&app, "race-rv1").await;
    let (revoke, redeem) =
        hold.in_order(owner.try_revoke_invitation(invited.invitation), rita.try_redeem(&invited.code)).await;
    assert_eq!((revoke.status.as_u16(), redeem.status.as_u16()), (200, 404));
    assert_invariants(&app).await;

    // Redeem queued first: it wins, the revocation finds no issued invitation.
    let (owner, invited, rita, hold) = race_setup(&app, "race-rv2").await;
    let (redeem, revoke) =
        hold.in_order(rita.try_redeem(&invited.code), owner.try_revoke_invitation(invited.invitation)).await;
    assert_eq!((redeem.status.as_u16(), revoke.status.as_u16()), (200, 409));
    assert_invariants(&app).await;
}

/// The redemption's locks and reads go out as one pipeline (`db::redemptions`), yet it
/// still waits at the program row before it locks the entry or the invitation (the one
/// global order), on the server's first redemption and on a later one alike.
#[tokio::test]
async fn a_redemption_waits_at_the_program_row_before_locking_what_comes_after_it() {
    let app = TestApp::spawn().await;
    for slug in ["order-1", "order-2"] {
        let (owner, ws) = app.owner(&format!("owner-{slug}@example.com")).await;
        let invited = owner.invited(ws, slug, EMAIL).await;
        let rita = app.recipient(EMAIL).await;
        let hold = LockHolder::lock(&app.db_url, "programs", invited.program).await;
        let (redeem, ()) = tokio::join!(rita.try_redeem(&invited.code), async {
            hold.wait_for_waiters(1).await;
            let probe = crate::support::db::connect(&app.db_url).await;
            probe.batch_execute("BEGIN").await.unwrap();
            for (table, id) in [("entries", invited.entry), ("invitations", invited.invitation)] {
                let sql = format!("SELECT 1 FROM {table} WHERE id = $1 FOR UPDATE NOWAIT");
                let locked = probe.execute(&sql, &[&id]).await;
                assert!(locked.is_ok(), "{slug}: the {table} row was locked before the program row: {locked:?}");
            }
            probe.batch_execute("ROLLBACK").await.unwrap();
            hold.release().await;
        });
        redeem.assert(200);
        assert_invariants(&app).await;
    }
}

#[tokio::test]
async fn withdraw_versus_redeem_in_both_orders() {
    let app = TestApp::spawn().await;
    let (_, invited, rita, hold) = race_setup(&app, "race-wd1").await;
    let (withdraw, redeem) = hold.in_order(rita.try_withdraw("race-wd1"), rita.try_redeem(&invited.code)).await;
    assert_eq!((withdraw.status.as_u16(), redeem.status.as_u16()), (200, 404));
    assert_invariants(&app).await;

    let (_, invited, rita, hold) = race_setup(&app, "race-wd2").await;
    let (redeem, withdraw) = hold.in_order(rita.try_redeem(&invited.code), rita.try_withdraw("race-wd2")).await;
    assert_eq!((redeem.status.as_u16(), withdraw.status.as_u16()), (200, 200));
    assert_invariants(&app).await;
    // The withdrawal that came second deactivated the fresh grant.
    let active: i64 =
        app.scalar("SELECT count(*) FROM grants WHERE program_id = $1 AND active", &[&invited.program]).await;
    assert_eq!(active, 0);
}

#[tokio::test]
async fn grant_revoke_versus_read_in_both_orders() {
    let app = TestApp::spawn().await;
    for (slug, revoke_first) in [("race-rd1", true), ("race-rd2", false)] {
        let (owner, ws) = app.owner(&format!("owner-{slug}@example.com")).await;
        let invited = owner.invited(ws, slug, EMAIL).await;
        let rita = app.recipient(EMAIL).await;
        rita.redeem(&invited.code).await;
        let grant: Uuid = app.scalar("SELECT id FROM grants WHERE program_id = $1", &[&invited.program]).await;
        let hold = LockHolder::lock(&app.db_url, "programs", invited.program).await;
        let (revoke, read) = if revoke_first {
            hold.in_order(owner.try_revoke_grant(grant), rita.try_early_access(slug)).await
        } else {
            let (read, revoke) = hold.in_order(rita.try_early_access(slug), owner.try_revoke_grant(grant)).await;
            (revoke, read)
        };
        revoke.assert(200);
        // A reader that got the lock first may finish its already-authorized read; a
        // revocation that committed first denies it.
        read.assert(if revoke_first { 404 } else { 200 });
        rita.try_early_access(slug).await.assert(404);
        assert_invariants(&app).await;
    }
}

/// Fairness across workspaces: one workspace's wave of redemptions, every one waiting its
/// turn on its program's row, holds at most half of the main runtime's pool (four
/// connections at the tests' `DB_POOL_SIZE`; `api::gates`), and waits for the rest of
/// its turns in memory. Another workspace's signup (admitted in a batch on that pool) and
/// redemption go through while the wave still waits. Without the gate the wave held all
/// four connections, and the other workspace waited until the wave's lock waits timed
/// out (`lock_timeout`), so some of the wave had answered by then. The metrics count who
/// waited at the gate.
#[tokio::test]
async fn one_workspace_s_wave_of_redemptions_leaves_the_other_workspaces_a_connection() {
    const WAVE: usize = 6;
    let app = crate::metrics::spawn_with_metrics().await;
    let (owner_a, ws_a) = app.owner("owner-wave-a@example.com").await;
    let crowded = owner_a.invited(ws_a, "wave-a", EMAIL).await;
    let (owner_b, ws_b) = app.owner("owner-wave-b@example.com").await;
    let other = owner_b.invited(ws_b, "wave-b", "bea@example.com").await;
    let bea = app.recipient("bea@example.com").await;
    let mut readers = Vec::new();
    for i in 0..WAVE {
        readers.push(app.recipient(&format!("reader-{i}@example.com")).await);
    }

    let hold = LockHolder::lock(&app.db_url, "programs", crowded.program).await;
    let wave: Vec<_> = readers
        .into_iter()
        .map(|reader| {
            let code = crowded.code.clone();
            tokio::spawn(async move { reader.try_redeem(&code).await })
        })
        .collect();
    hold.wait_for_waiters(2).await;

    app.try_signup("wave-b", "carl@example.com").await.assert(202);
    bea.try_redeem(&other.code).await.assert(200);
    assert!(wave.iter().all(|r| !r.is_finished()), "the other workspace went through while the whole wave waited");
    let waiting: i64 = app
        .scalar(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
            &[],
        )
        .await;
    assert_eq!(waiting, 2, "half of the main pool's four connections wait on the crowded program's row");

    hold.release().await;
    for reply in wave {
        // The code is rita's: every reader waited their turn on the row, then was refused.
        reply.await.unwrap().assert(404);
    }
    let rita = app.recipient(EMAIL).await;
    rita.try_redeem(&crowded.code).await.assert(200);
    assert_invariants(&app).await;
    // The operator sees the queue: two of the wave, bea and rita went through at once.
    let samples = crate::metrics::scrape(&app).await;
    let gate = |outcome: &str| {
        let series = format!(r#"vestibule_events_total{{family="redemption_gate",outcome="{outcome}"}}"#);
        crate::metrics::value(&samples, &series)
    };
    assert_eq!((gate("at_once"), gate("waited")), (4.0, (WAVE - 2) as f64));
}
