//! Owner program management (issue 3, SPEC §6.4): create, list, read with live counts,
//! PATCH under `expectedRevision` with its preconditions, sequential notices, stats, and
//! the same 404 for everyone who is not a current owner of the workspace.

use crate::support::owner::{changes, Caps, PURPOSE};
use crate::support::TestApp;
use serde_json::{json, Value};
use shared::api::{Notice, PatchProgramRequest, Program, ProgramCounts, PublishNoticeRequest};
use uuid::Uuid;

/// A create body as raw JSON, so tests can break one field at a time.
fn create_body(ws: Uuid, slug: &str) -> Value {
    json!({"workspaceId": ws, "slug": slug, "purpose": PURPOSE, "queueCap": 10, "hourlyCap": 5,
           "seatCap": 3, "maxInviteDays": 7})
}

fn notice_body(purpose: &str, contact: &str, retention: &str) -> PublishNoticeRequest {
    PublishNoticeRequest {
        purpose: purpose.into(),
        contact_text: contact.into(),
        retention_text: retention.into(),
        questions: Vec::new(),
    }
}

async fn events(app: &TestApp, program: Uuid, kind: &str) -> Vec<String> {
    app.column(
        "SELECT details::text FROM audit_events WHERE program_id = $1 AND event_type = $2 ORDER BY id",
        &[&program, &kind],
    )
    .await
}

#[tokio::test]
async fn a_new_program_is_closed_without_notice_or_content_and_is_listed() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let p: Program = owner.try_create_program(&create_body(ws, "beta-1")).await.expect(201);
    assert_eq!(p.slug, "beta-1");
    assert_eq!(p.purpose, PURPOSE);
    assert_eq!((p.signup_open, p.access_enabled), (false, false));
    assert_eq!((p.queue_cap, p.hourly_cap, p.seat_cap), (10, 5, 3));
    assert_eq!(p.max_invite_days, 7);
    assert_eq!(p.revision, 1);
    assert_eq!(p.notice, None);
    assert!(!p.has_content);
    assert_eq!(p.counts, ProgramCounts::default());
    assert_eq!(owner.program(p.id).await, p);
    assert_eq!(owner.programs(ws).await, vec![p]);
    app.get("/api/public/programs/beta-1", None).await.assert(404);
}

#[tokio::test]
async fn create_refuses_out_of_bounds_fields_and_a_taken_slug() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let (other, other_ws) = app.owner("other@example.com").await;
    let bad = [
        ("slug", json!("ab")),
        ("slug", json!("Has-Upper")),
        ("slug", json!("a".repeat(61))),
        ("purpose", json!("")),
        ("purpose", json!("   ")),
        ("purpose", json!("x".repeat(1001))),
        ("queueCap", json!(0)),
        ("hourlyCap", json!(100_001)),
        ("seatCap", json!(-1)),
        ("maxInviteDays", json!(0)),
        ("maxInviteDays", json!(31)),
    ];
    for (field, value) in bad {
        let mut body = create_body(ws, "fine-slug");
        body[field] = value;
        let r = owner.try_create_program(&body).await;
        r.assert(400);
        let code = r.error_code();
        assert!(code.starts_with("invalid_"), "{field}: {code}");
    }
    let mut edge = create_body(ws, &"a".repeat(60));
    edge["purpose"] = json!("é".repeat(1000));
    edge["maxInviteDays"] = json!(30);
    edge["queueCap"] = json!(100_000);
    owner.try_create_program(&edge).await.expect::<Program>(201);
    owner.try_create_program(&create_body(ws, "taken")).await.expect::<Program>(201);
    other.try_create_program(&create_body(other_ws, "taken")).await.expect_error(409, "slug_taken");
    let n: i64 = app.scalar("SELECT count(*) FROM programs", &[]).await;
    assert_eq!(n, 2);
}

#[tokio::test]
async fn non_owners_and_foreign_owners_get_the_same_404_everywhere() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let (foreign, foreign_ws) = app.owner("foreign@example.com").await;
    let stranger = app.as_owner(app.user("stranger@example.com").await);
    let program = owner.create_program(ws, "beta", Caps::default()).await.id;
    let not_found = app.not_found_text().await;
    for who in [&foreign, &stranger] {
        let replies = [
            who.try_create_program(&create_body(ws, "sneaky")).await,
            who.get(&format!("/api/owner/programs?workspaceId={ws}")).await,
            who.get(&format!("/api/owner/programs/{program}")).await,
            who.get(&format!("/api/owner/programs/{program}/stats")).await,
            who.patch(&format!("/api/owner/programs/{program}"), &json!({"expectedRevision": 1, "seatCap": 9})).await,
            who.try_publish_notice(program, &notice_body(PURPOSE, "c", "r")).await,
        ];
        for r in replies {
            r.assert_exactly(404, &not_found);
        }
    }
    owner.get(&format!("/api/owner/programs/{}", Uuid::new_v4())).await.assert_exactly(404, &not_found);
    owner.get("/api/owner/programs/not-a-uuid").await.assert(404);
    // The foreign owner's own workspace lists nothing of ours.
    assert_eq!(foreign.programs(foreign_ws).await, vec![]);
    let p = owner.program(program).await;
    assert_eq!((p.revision, p.seat_cap, p.notice), (1, 100, None));
}

#[tokio::test]
async fn notices_are_sequential_need_the_programs_purpose_and_become_current() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let program = owner.create_program(ws, "beta", Caps::default()).await.id;
    let mismatch = owner.try_publish_notice(program, &notice_body("Something else", "c", "r")).await;
    mismatch.expect_error(409, "purpose_mismatch");
    for bad in [
        json!({"purpose": PURPOSE, "contactText": "", "retentionText": "r"}),
        json!({"purpose": PURPOSE, "contactText": "c", "retentionText": "x".repeat(1001)}),
        json!({"purpose": PURPOSE, "contactText": "c"}),
    ] {
        owner.try_publish_notice(program, &bad).await.assert(400);
    }
    let first = owner.try_publish_notice(program, &notice_body(PURPOSE, "Email once.", "1 year.")).await;
    let n: Notice = first.expect(201);
    assert_eq!((n.version, n.contact_text.as_str()), (1, "Email once."));
    assert_eq!(owner.publish_notice(program).await.version, 2);
    assert_eq!(owner.publish_notice(program).await.version, 3);
    assert_eq!(owner.program(program).await.notice.map(|n| n.version), Some(3));
    let public = app.public_program("beta").await;
    assert_eq!((public.slug.as_str(), public.signup_open), ("beta", false));
    assert_eq!(public.notice.version, 3);
    assert_eq!(public.notice.purpose, PURPOSE);
    assert!(chrono::DateTime::parse_from_rfc3339(&public.notice.published_at).is_ok());
    assert_eq!(events(&app, program, "notice_published").await.len(), 3);
    app.get("/api/public/programs/unknown", None).await.assert(404);
}

#[tokio::test]
async fn patch_needs_the_current_revision_and_records_one_event_per_change() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let program = owner.create_program(ws, "beta", Caps::default()).await.id;
    let path = format!("/api/owner/programs/{program}");
    let p: Program =
        owner.patch(&path, &json!({"expectedRevision": 1, "queueCap": 50, "hourlyCap": 7})).await.expect(200);
    assert_eq!((p.revision, p.queue_cap, p.hourly_cap), (2, 50, 7));
    let stale = owner.patch(&path, &json!({"expectedRevision": 1, "queueCap": 60})).await;
    stale.expect_error(409, "stale_revision");
    assert_eq!(owner.program(program).await.queue_cap, 50);
    for bad in [
        json!({"expectedRevision": 2, "queueCap": 0}),
        json!({"expectedRevision": 2, "seatCap": 100_001}),
        json!({"queueCap": 5}),
    ] {
        owner.patch(&path, &bad).await.assert(400);
    }
    let changed = events(&app, program, "program_changed").await;
    assert_eq!(changed.len(), 2, "creation and the one PATCH: {changed:?}");
    assert!(changed[1].contains("\"queueCap\": 50") && changed[1].contains("\"hourlyCap\": 7"), "{}", changed[1]);
}

#[tokio::test]
async fn opening_needs_a_notice_and_enabling_access_needs_content() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let program = owner.create_program(ws, "beta", Caps::default()).await.id;
    let open = PatchProgramRequest { signup_open: Some(true), ..changes() };
    owner.try_patch_program(program, open).await.expect_error(409, "notice_required");
    let access = PatchProgramRequest { access_enabled: Some(true), ..changes() };
    owner.try_patch_program(program, access).await.expect_error(409, "content_required");
    owner.publish_notice(program).await;
    assert!(owner.set_signup_open(program, true).await.signup_open);
    app.exec("INSERT INTO early_access_content (program_id, body) VALUES ($1, 'Welcome')", &[&program]).await;
    let on = owner.set_access_enabled(program, true).await;
    assert_eq!((on.access_enabled, on.has_content), (true, true));
    assert!(app.public_program("beta").await.signup_open);
}

#[tokio::test]
async fn the_seat_cap_never_drops_below_seats_in_use() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let program = owner.program_with(ws, "beta", Caps { seats: 5, ..Caps::default() }).await;
    for who in ["a", "b", "c"] {
        app.signup("beta", &format!("{who}@example.com")).await;
    }
    // Two live seats (an issued invitation and an active grant) and one expired invitation.
    for (email, state) in [("a@example.com", "invited"), ("b@example.com", "active"), ("c@example.com", "invited")] {
        app.exec("UPDATE entries SET state = $2 WHERE email_key = $1", &[&email, &state]).await;
    }
    let entry = |email: &'static str| app.entry_id(program, email);
    let (a, b, c) = (entry("a@example.com").await, entry("b@example.com").await, entry("c@example.com").await);
    app.exec(
        "INSERT INTO invitations (program_id, entry_id, token_sha256, state, issued_at, expires_at) VALUES \
         ($1, $2, gen_random_bytes(32), 'issued', now(), now() + interval '7 days'), \
         ($1, $3, gen_random_bytes(32), 'issued', now() - interval '8 days', now() - interval '1 day')",
        &[&program, &a, &c],
    )
    .await;
    app.grant_by_sql(program, b, "user_b").await;
    assert_eq!(owner.program(program).await.counts.seats, 2);
    let seats = |cap| PatchProgramRequest { seat_cap: Some(cap), ..changes() };
    owner.try_patch_program(program, seats(1)).await.expect_error(409, "seat_cap_below_use");
    assert_eq!(owner.patch_program(program, seats(2)).await.seat_cap, 2);
}

#[tokio::test]
async fn lowering_caps_keeps_existing_entries_and_stops_new_ones() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let program = owner.open_program(ws, "beta").await;
    for who in ["a", "b", "c"] {
        app.signup("beta", &format!("{who}@example.com")).await;
    }
    let lower = PatchProgramRequest { queue_cap: Some(1), hourly_cap: Some(2), ..changes() };
    let p = owner.patch_program(program, lower).await;
    assert_eq!(p.counts, ProgramCounts { queue: 3, hour: 3, entries: 3, waiting: 3, ..ProgramCounts::default() });
    app.try_signup("beta", "d@example.com").await.assert(429);
    let n: i64 =
        app.scalar("SELECT count(*) FROM entries WHERE program_id = $1 AND state = 'waiting'", &[&program]).await;
    assert_eq!(n, 3);
}

#[tokio::test]
async fn stats_show_this_hours_intake_and_every_state() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let program = owner.open_program(ws, "beta").await;
    for who in ["a", "b"] {
        app.signup("beta", &format!("{who}@example.com")).await;
    }
    app.exec(
        "INSERT INTO intake_hours VALUES ($1, date_trunc('hour', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - interval '5 hours', 4), \
         ($1, date_trunc('hour', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - interval '49 hours', 9)",
        &[&program],
    )
    .await;
    app.exec("UPDATE entries SET state = 'selected' WHERE email_key = 'a@example.com'", &[]).await;
    let stats = owner.stats(program).await;
    let hours: Vec<i64> = stats.intake_hours.iter().map(|h| h.admitted).collect();
    assert_eq!(hours, vec![4, 2], "last 48 hours only, oldest first");
    assert_eq!(stats.states[&shared::EntryState::Waiting], 1);
    assert_eq!(stats.states[&shared::EntryState::Selected], 1);
    assert_eq!(stats.states[&shared::EntryState::Revoked], 0);
    assert_eq!(stats.states.len(), 7);
}

/// Issue 28: a program's figures are counts the transitions keep in their own
/// transaction (V101), not a count of the queue on every read; `vestibule verify` checks
/// them against the entries.
#[tokio::test]
async fn program_figures_are_the_counts_the_transitions_keep_and_verify_checks_them() {
    let app = TestApp::spawn().await;
    let (owner, _, program) = app.queue_of("figures", 4).await;
    let entries = app.queued_entries(program, 4).await;
    owner.select(program, entries[0]).await;
    owner.select(program, entries[1]).await;
    owner.decline(program, entries[1], "not_eligible").await;
    owner.withdraw(program, entries[2], "applicant_request").await;
    let kept: Vec<(String, i64)> = app
        .rows("SELECT state, n FROM program_entry_counts WHERE program_id = $1 AND n > 0 ORDER BY state", &[&program])
        .await
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    let counted: Vec<(String, i64)> = app
        .rows("SELECT state, count(*) FROM entries WHERE program_id = $1 GROUP BY state ORDER BY state", &[&program])
        .await
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    assert_eq!(kept, counted);
    let p = owner.program(program).await;
    assert_eq!((p.counts.entries, p.counts.waiting, p.counts.selected), (4, 1, 1));
    let stats = owner.stats(program).await;
    assert_eq!(stats.states[&shared::EntryState::Declined], 1);
    assert_eq!(stats.states[&shared::EntryState::Withdrawn], 1);
    let verify = || crate::support::process::vestibule(&app.db_url, &["verify"], &[]);
    assert!(verify().status.success(), "{}", String::from_utf8_lossy(&verify().stdout));

    // The reads answer the kept counts (no count of the queue): a drifted count shows, and
    // verify names it.
    app.exec("UPDATE program_entry_counts SET n = n + 5 WHERE program_id = $1 AND state = 'waiting'", &[&program])
        .await;
    assert_eq!(owner.program(program).await.counts.waiting, 6);
    assert_eq!(owner.stats(program).await.states[&shared::EntryState::Waiting], 6);
    let out = verify();
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success(), "{report}");
    assert!(report.contains("FAIL  each program's entry counts per state equal its entries"), "{report}");
}
