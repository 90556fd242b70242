//! Owner program management (issue 3, SPEC §6.4): create, list, read with live counts,
//! PATCH under `expectedRevision` with its preconditions, sequential notices, stats, and
//! the same 404 for everyone who is not a current owner of the workspace.

use crate::support::flows::{Caps, PURPOSE};
use crate::support::TestApp;
use serde_json::{json, Value};
use uuid::Uuid;

fn id(v: &Value) -> Uuid {
    v["id"].as_str().unwrap().parse().unwrap()
}

fn create_body(ws: Uuid, slug: &str) -> Value {
    json!({"workspaceId": ws, "slug": slug, "purpose": PURPOSE, "queueCap": 10, "hourlyCap": 5,
           "seatCap": 3, "maxInviteDays": 7})
}

async fn events(app: &TestApp, program: Uuid, kind: &str) -> Vec<String> {
    let db = app.db().await;
    db.query(
        "SELECT details::text FROM audit_events WHERE program_id = $1 AND event_type = $2 ORDER BY id",
        &[&program, &kind],
    )
    .await
    .unwrap()
    .iter()
    .map(|r| r.get(0))
    .collect()
}

#[tokio::test]
async fn a_new_program_is_closed_without_notice_or_content_and_is_listed() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let r = app.post("/api/owner/programs", &create_body(ws, "beta-1"), Some(&owner)).await;
    r.assert(201);
    let p = r.json();
    assert_eq!(p["slug"], "beta-1");
    assert_eq!(p["purpose"], PURPOSE);
    assert_eq!((p["signupOpen"].as_bool(), p["accessEnabled"].as_bool()), (Some(false), Some(false)));
    assert_eq!((p["queueCap"].as_i64(), p["hourlyCap"].as_i64(), p["seatCap"].as_i64()), (Some(10), Some(5), Some(3)));
    assert_eq!(p["maxInviteDays"], 7);
    assert_eq!(p["revision"], 1);
    assert_eq!(p["notice"], Value::Null);
    assert_eq!(p["hasContent"], false);
    assert_eq!(p["counts"], json!({"queue": 0, "hour": 0, "seats": 0}));
    assert_eq!(app.program(&owner, id(&p)).await, p);
    let list = app.get(&format!("/api/owner/programs?workspaceId={ws}"), Some(&owner)).await;
    list.assert(200);
    assert_eq!(list.json(), json!([p]));
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
        let r = app.post("/api/owner/programs", &body, Some(&owner)).await;
        r.assert(400);
        assert!(r.code().starts_with("invalid_"), "{field}: {}", r.code());
    }
    let mut edge = create_body(ws, &"a".repeat(60));
    edge["purpose"] = json!("é".repeat(1000));
    edge["maxInviteDays"] = json!(30);
    edge["queueCap"] = json!(100_000);
    app.post("/api/owner/programs", &edge, Some(&owner)).await.assert(201);
    app.post("/api/owner/programs", &create_body(ws, "taken"), Some(&owner)).await.assert(201);
    let r = app.post("/api/owner/programs", &create_body(other_ws, "taken"), Some(&other)).await;
    r.assert(409);
    assert_eq!(r.code(), "slug_taken");
    let db = app.db().await;
    let n: i64 = db.query_one("SELECT count(*) FROM programs", &[]).await.unwrap().get(0);
    assert_eq!(n, 2);
}

#[tokio::test]
async fn non_owners_and_foreign_owners_get_the_same_404_everywhere() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let (foreign, foreign_ws) = app.owner("foreign@example.com").await;
    let stranger = app.user("stranger@example.com").await;
    let program = id(&app.create_program(&owner, ws, "beta", Caps::default()).await);
    let not_found = app.get("/api/nothing", None).await.text;
    for who in [&foreign, &stranger] {
        let replies = [
            app.post("/api/owner/programs", &create_body(ws, "sneaky"), Some(who)).await,
            app.get(&format!("/api/owner/programs?workspaceId={ws}"), Some(who)).await,
            app.get(&format!("/api/owner/programs/{program}"), Some(who)).await,
            app.get(&format!("/api/owner/programs/{program}/stats"), Some(who)).await,
            app.patch(
                &format!("/api/owner/programs/{program}"),
                &json!({"expectedRevision": 1, "seatCap": 9}),
                Some(who),
            )
            .await,
            app.post(
                &format!("/api/owner/programs/{program}/notices"),
                &json!({"purpose": PURPOSE, "contactText": "c", "retentionText": "r"}),
                Some(who),
            )
            .await,
        ];
        for r in replies {
            r.assert(404);
            assert_eq!(r.text, not_found);
        }
    }
    let r = app.get(&format!("/api/owner/programs/{}", Uuid::new_v4()), Some(&owner)).await;
    assert_eq!((r.status.as_u16(), r.text.as_str()), (404, not_found.as_str()));
    app.get("/api/owner/programs/not-a-uuid", Some(&owner)).await.assert(404);
    // The foreign owner's own workspace lists nothing of ours.
    let list = app.get(&format!("/api/owner/programs?workspaceId={foreign_ws}"), Some(&foreign)).await;
    assert_eq!(list.json(), json!([]));
    let p = app.program(&owner, program).await;
    assert_eq!((p["revision"].as_i64(), p["seatCap"].as_i64(), p["notice"].is_null()), (Some(1), Some(100), true));
}

#[tokio::test]
async fn notices_are_sequential_need_the_programs_purpose_and_become_current() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let program = id(&app.create_program(&owner, ws, "beta", Caps::default()).await);
    let path = format!("/api/owner/programs/{program}/notices");
    let r = app
        .post(&path, &json!({"purpose": "Something else", "contactText": "c", "retentionText": "r"}), Some(&owner))
        .await;
    r.assert(409);
    assert_eq!(r.code(), "purpose_mismatch");
    for body in [
        json!({"purpose": PURPOSE, "contactText": "", "retentionText": "r"}),
        json!({"purpose": PURPOSE, "contactText": "c", "retentionText": "x".repeat(1001)}),
        json!({"purpose": PURPOSE, "contactText": "c"}),
    ] {
        app.post(&path, &body, Some(&owner)).await.assert(400);
    }
    let first = app
        .post(
            &path,
            &json!({"purpose": PURPOSE, "contactText": "Email once.", "retentionText": "1 year."}),
            Some(&owner),
        )
        .await;
    first.assert(201);
    let n = first.json();
    assert_eq!((n["version"].as_i64(), n["contactText"].as_str()), (Some(1), Some("Email once.")));
    assert_eq!(app.publish_notice(&owner, program).await, 2);
    assert_eq!(app.publish_notice(&owner, program).await, 3);
    let p = app.program(&owner, program).await;
    assert_eq!(p["notice"]["version"], 3);
    let public = app.get("/api/public/programs/beta", None).await;
    public.assert(200);
    let v = public.json();
    assert_eq!((v["slug"].as_str(), v["signupOpen"].as_bool()), (Some("beta"), Some(false)));
    assert_eq!(v["notice"]["version"], 3);
    assert_eq!(v["notice"]["purpose"], PURPOSE);
    assert!(v["notice"]["publishedAt"].is_string());
    assert_eq!(events(&app, program, "notice_published").await.len(), 3);
    app.get("/api/public/programs/unknown", None).await.assert(404);
}

#[tokio::test]
async fn patch_needs_the_current_revision_and_records_one_event_per_change() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let program = id(&app.create_program(&owner, ws, "beta", Caps::default()).await);
    let path = format!("/api/owner/programs/{program}");
    let r = app.patch(&path, &json!({"expectedRevision": 1, "queueCap": 50, "hourlyCap": 7}), Some(&owner)).await;
    r.assert(200);
    let p = r.json();
    assert_eq!((p["revision"].as_i64(), p["queueCap"].as_i64(), p["hourlyCap"].as_i64()), (Some(2), Some(50), Some(7)));
    let stale = app.patch(&path, &json!({"expectedRevision": 1, "queueCap": 60}), Some(&owner)).await;
    stale.assert(409);
    assert_eq!(stale.code(), "stale_revision");
    assert_eq!(app.program(&owner, program).await["queueCap"], 50);
    for bad in [
        json!({"expectedRevision": 2, "queueCap": 0}),
        json!({"expectedRevision": 2, "seatCap": 100_001}),
        json!({"queueCap": 5}),
    ] {
        app.patch(&path, &bad, Some(&owner)).await.assert(400);
    }
    let changed = events(&app, program, "program_changed").await;
    assert_eq!(changed.len(), 2, "creation and the one PATCH: {changed:?}");
    assert!(changed[1].contains("\"queueCap\": 50") && changed[1].contains("\"hourlyCap\": 7"), "{}", changed[1]);
}

#[tokio::test]
async fn opening_needs_a_notice_and_enabling_access_needs_content() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let program = id(&app.create_program(&owner, ws, "beta", Caps::default()).await);
    let r = app.patch_program(&owner, program, json!({"signupOpen": true})).await;
    r.assert(409);
    assert_eq!(r.code(), "notice_required");
    let r = app.patch_program(&owner, program, json!({"accessEnabled": true})).await;
    r.assert(409);
    assert_eq!(r.code(), "content_required");
    app.publish_notice(&owner, program).await;
    let open = app.patch_program(&owner, program, json!({"signupOpen": true})).await;
    open.assert(200);
    assert_eq!(open.json()["signupOpen"], true);
    let db = app.db().await;
    db.execute("INSERT INTO early_access_content (program_id, body) VALUES ($1, 'Welcome')", &[&program])
        .await
        .unwrap();
    let on = app.patch_program(&owner, program, json!({"accessEnabled": true})).await;
    on.assert(200);
    assert_eq!((on.json()["accessEnabled"].as_bool(), on.json()["hasContent"].as_bool()), (Some(true), Some(true)));
    assert_eq!(app.get("/api/public/programs/beta", None).await.json()["signupOpen"], true);
}

#[tokio::test]
async fn the_seat_cap_never_drops_below_seats_in_use() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let program = app.program_with(&owner, ws, "beta", Caps { seats: 5, ..Caps::default() }).await;
    for who in ["a", "b", "c"] {
        app.signup("beta", &format!("{who}@example.com")).await.assert(202);
    }
    let db = app.db().await;
    // Two live seats (an issued invitation and an active grant) and one expired invitation.
    for (email, state) in [("a@example.com", "invited"), ("b@example.com", "active"), ("c@example.com", "invited")] {
        db.execute("UPDATE entries SET state = $2 WHERE email_key = $1", &[&email, &state]).await.unwrap();
    }
    let entry = |email: &'static str| app.entry_id(program, email);
    let (a, b, c) = (entry("a@example.com").await, entry("b@example.com").await, entry("c@example.com").await);
    db.execute(
        "INSERT INTO invitations (program_id, entry_id, token_sha256, state, issued_at, expires_at) VALUES \
         ($1, $2, gen_random_bytes(32), 'issued', now(), now() + interval '7 days'), \
         ($1, $3, gen_random_bytes(32), 'issued', now() - interval '8 days', now() - interval '1 day')",
        &[&program, &a, &c],
    )
    .await
    .unwrap();
    let redeemed: Uuid = db
        .query_one(
            "INSERT INTO invitations (program_id, entry_id, token_sha256, state, issued_at, expires_at, terminal_at) \
             VALUES ($1, $2, gen_random_bytes(32), 'redeemed', now(), now() + interval '7 days', now()) RETURNING id",
            &[&program, &b],
        )
        .await
        .unwrap()
        .get(0);
    db.execute(
        "INSERT INTO grants (program_id, entry_id, invitation_id, clerk_user_id, granted_at) VALUES ($1, $2, $3, 'user_b', now())",
        &[&program, &b, &redeemed],
    )
    .await
    .unwrap();
    assert_eq!(app.program(&owner, program).await["counts"]["seats"], 2);
    let r = app.patch_program(&owner, program, json!({"seatCap": 1})).await;
    r.assert(409);
    assert_eq!(r.code(), "seat_cap_below_use");
    let ok = app.patch_program(&owner, program, json!({"seatCap": 2})).await;
    ok.assert(200);
    assert_eq!(ok.json()["seatCap"], 2);
}

#[tokio::test]
async fn lowering_caps_keeps_existing_entries_and_stops_new_ones() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let program = app.open_program(&owner, ws, "beta").await;
    for who in ["a", "b", "c"] {
        app.signup("beta", &format!("{who}@example.com")).await.assert(202);
    }
    let r = app.patch_program(&owner, program, json!({"queueCap": 1, "hourlyCap": 2})).await;
    r.assert(200);
    assert_eq!(r.json()["counts"], json!({"queue": 3, "hour": 3, "seats": 0}));
    app.signup("beta", "d@example.com").await.assert(429);
    let db = app.db().await;
    let n: i64 = db
        .query_one("SELECT count(*) FROM entries WHERE program_id = $1 AND state = 'waiting'", &[&program])
        .await
        .unwrap()
        .get(0);
    assert_eq!(n, 3);
}

#[tokio::test]
async fn stats_show_this_hours_intake_and_every_state() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let program = app.open_program(&owner, ws, "beta").await;
    for who in ["a", "b"] {
        app.signup("beta", &format!("{who}@example.com")).await.assert(202);
    }
    let db = app.db().await;
    db.execute(
        "INSERT INTO intake_hours VALUES ($1, date_trunc('hour', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - interval '5 hours', 4), \
         ($1, date_trunc('hour', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - interval '49 hours', 9)",
        &[&program],
    )
    .await
    .unwrap();
    db.execute("UPDATE entries SET state = 'selected' WHERE email_key = 'a@example.com'", &[]).await.unwrap();
    let r = app.get(&format!("/api/owner/programs/{program}/stats"), Some(&owner)).await;
    r.assert(200);
    let v = r.json();
    let hours: Vec<i64> =
        v["intakeHours"].as_array().unwrap().iter().map(|h| h["admitted"].as_i64().unwrap()).collect();
    assert_eq!(hours, vec![4, 2], "last 48 hours only, oldest first");
    assert_eq!(v["states"]["waiting"], 1);
    assert_eq!(v["states"]["selected"], 1);
    assert_eq!(v["states"]["revoked"], 0);
    assert_eq!(v["states"].as_object().unwrap().len(), 7);
}
