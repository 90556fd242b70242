//! The owner's queue (issue 4): paging stable while signups arrive, filters and bounds,
//! entry detail, the decisions' allow-lists and transitions, the CSV export, and the
//! uniform 404 for everyone who is not a current owner of the program's workspace.

use crate::support::{TestApp, User};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use serde_json::{json, Value};
use std::collections::HashSet;
use uuid::Uuid;

/// An owner with an open program `slug` and `n` signups `u{i}@example.com`, in order.
pub(crate) async fn queue_of(app: &TestApp, slug: &str, n: usize) -> (User, Uuid, Uuid) {
    let (owner, ws) = app.owner("owner@example.com").await;
    let program = app.open_program(&owner, ws, slug).await;
    for i in 0..n {
        app.signup(slug, &format!("u{i}@example.com")).await.assert(202);
    }
    (owner, ws, program)
}

fn ids(page: &Value) -> Vec<Uuid> {
    page["entries"].as_array().unwrap().iter().map(|e| e["id"].as_str().unwrap().parse().unwrap()).collect()
}

#[tokio::test]
async fn paging_is_stable_while_signups_arrive() {
    let app = TestApp::spawn().await;
    let (owner, _, program) = queue_of(&app, "paging", 12).await;
    let db = app.db().await;
    let original: Vec<Uuid> = db
        .query("SELECT id FROM entries WHERE program_id = $1 ORDER BY created_at, id", &[&program])
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();

    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    let mut added = 0;
    loop {
        let query = match &cursor {
            Some(c) => format!("?limit=5&cursor={c}"),
            None => "?limit=5".to_owned(),
        };
        let r = app.get(&format!("/api/owner/programs/{program}/entries{query}"), Some(&owner)).await;
        r.assert(200);
        let page = r.json();
        assert!(page["entries"].as_array().unwrap().len() <= 5);
        seen.extend(ids(&page));
        // New signups land between page reads.
        for _ in 0..2 {
            app.signup("paging", &format!("late{added}@example.com")).await.assert(202);
            added += 1;
        }
        match page["nextCursor"].as_str() {
            Some(c) => {
                let raw = URL_SAFE_NO_PAD.decode(c).expect("the cursor is base64url");
                assert_eq!(raw.len(), 24, "a time and an id, nothing else");
                assert!(!String::from_utf8_lossy(&raw).contains("example.com"), "no email in the cursor");
                cursor = Some(c.to_owned());
            }
            None => break,
        }
        assert!(added < 40, "paging must end");
    }
    let unique: HashSet<_> = seen.iter().collect();
    assert_eq!(unique.len(), seen.len(), "no entry twice");
    assert_eq!(&seen[..original.len()], &original[..], "the first entries in queue order, no gaps");
    assert!(seen.len() > original.len(), "entries added while paging sort after, and are reached");
}

#[tokio::test]
async fn list_parameters_are_bounded_and_filters_work() {
    let app = TestApp::spawn().await;
    let (owner, _, program) = queue_of(&app, "filters", 3).await;
    app.signup("filters", "Mixed.Case@Example.com").await.assert(202);
    let base = format!("/api/owner/programs/{program}/entries");
    for bad in
        ["?limit=0", "?limit=101", "?limit=x", "?state=nope", "?cursor=%21%21", "?cursor=AAAA", "?q=", "?other=1"]
    {
        let r = app.get(&format!("{base}{bad}"), Some(&owner)).await;
        r.assert(400);
    }
    // Search text travels in a body, never in a URL.
    let search = format!("{base}/search");
    let find = async |q: serde_json::Value| app.post(&search, &q, Some(&owner)).await;
    for bad in [json!({"q": ""}), json!({"q": "a".repeat(255)}), json!({"q": "x", "other": 1}), json!({"limit": 0})] {
        find(bad).await.assert(400);
    }
    app.get(&format!("{base}?limit=100"), Some(&owner)).await.assert(200);

    let first = app.entry_id(program, "u1@example.com").await;
    app.select(&owner, program, first).await.assert(200);
    let selected = app.get(&format!("{base}?state=selected"), Some(&owner)).await.json();
    assert_eq!(ids(&selected), vec![first]);
    assert_eq!(selected["entries"][0]["state"], "selected");
    assert_eq!(selected["entries"][0]["email"], "u1@example.com");
    assert_eq!(selected["entries"][0]["noticeVersion"], 1);
    assert!(selected["nextCursor"].is_null());

    let found = find(json!({"q": "mixed.case@example"})).await.json();
    assert_eq!(found["entries"].as_array().unwrap().len(), 1, "case-insensitive fragment");
    let wildcard = find(json!({"q": "%"})).await.json();
    assert_eq!(wildcard["entries"].as_array().unwrap().len(), 0, "% is a literal, not a wildcard");
    let underscore = find(json!({"q": "u_@"})).await.json();
    assert_eq!(underscore["entries"].as_array().unwrap().len(), 0, "_ is a literal, not a wildcard");
    let waiting_u = find(json!({"state": "waiting", "q": "U"})).await.json();
    assert_eq!(waiting_u["entries"].as_array().unwrap().len(), 2, "filters combine");
}

#[tokio::test]
async fn entry_detail_has_the_notice_choice_time_invitations_grant_and_history_but_no_code() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let (program, entry, invitation, code) = app.invited(&owner, ws, "detail", "dana@example.com").await;
    let r = app.get(&format!("/api/owner/programs/{program}/entries/{entry}"), Some(&owner)).await;
    r.assert(200);
    assert!(!r.text.contains(&code));
    let d = r.json();
    assert_eq!(d["email"], "dana@example.com");
    assert_eq!(d["state"], "invited");
    assert_eq!(d["notice"]["version"], 1);
    assert_eq!(d["notice"]["contactText"], "We will email you once.");
    let db = app.db().await;
    let permission_at: chrono::DateTime<chrono::Utc> =
        db.query_one("SELECT permission_at FROM entries WHERE id = $1", &[&entry]).await.unwrap().get(0);
    assert_eq!(d["permissionAt"], api::time::rfc3339(permission_at));
    assert_eq!(d["invitations"][0]["id"], invitation.to_string());
    assert_eq!(d["invitations"][0]["state"], "issued");
    assert_eq!(d["invitations"][0]["delivery"]["channel"], "email");
    assert!(d["invitations"][0].get("code").is_none());
    assert!(d["grant"].is_null());
    let types: Vec<&str> = d["events"].as_array().unwrap().iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(types, ["signup", "selected", "invite_issued", "delivery_recorded"]);
    let event_ids: Vec<i64> = d["events"].as_array().unwrap().iter().map(|e| e["id"].as_i64().unwrap()).collect();
    assert!(event_ids.windows(2).all(|w| w[0] < w[1]), "ascending id");
}

#[tokio::test]
async fn a_path_naming_another_programs_entry_is_denied_even_if_both_exist() {
    let app = TestApp::spawn().await;
    let (owner, ws, a) = queue_of(&app, "prog-a", 1).await;
    let b = app.open_program(&owner, ws, "prog-b").await;
    app.signup("prog-b", "bea@example.com").await.assert(202);
    let of_b = app.entry_id(b, "bea@example.com").await;
    let not_found = app.get("/api/nothing", None).await.text;
    let r = app.get(&format!("/api/owner/programs/{a}/entries/{of_b}"), Some(&owner)).await;
    r.assert(404);
    assert_eq!(r.text, not_found);
    for action in ["select", "decline"] {
        let r = app
            .post(
                &format!("/api/owner/programs/{a}/entries/{of_b}/{action}"),
                &json!({"reasonCode": "owner_discretion"}),
                Some(&owner),
            )
            .await;
        r.assert(404);
    }
    app.post(
        &format!("/api/owner/programs/{a}/entries/{of_b}/withdraw"),
        &json!({"basis": "owner_policy"}),
        Some(&owner),
    )
    .await
    .assert(404);
    app.issue_with(&owner, a, of_b, Uuid::new_v4(), 3).await.assert(404);
    let db = app.db().await;
    let state: String = db.query_one("SELECT state FROM entries WHERE id = $1", &[&of_b]).await.unwrap().get(0);
    assert_eq!(state, "waiting");
}

#[tokio::test]
async fn decisions_use_fixed_allow_lists_and_the_state_machine() {
    let app = TestApp::spawn().await;
    let (owner, _, program) = queue_of(&app, "decide", 3).await;
    let [e0, e1, e2] = [0, 1, 2].map(|i| format!("u{i}@example.com"));
    let (e0, e1, e2) =
        (app.entry_id(program, &e0).await, app.entry_id(program, &e1).await, app.entry_id(program, &e2).await);
    let url = |e: Uuid, action: &str| format!("/api/owner/programs/{program}/entries/{e}/{action}");

    for bad in [
        json!({"reasonCode": "because"}),
        json!({"reasonCode": "not_eligible"}),
        json!({}),
        json!({"reasonCode": "meets_policy", "x": 1}),
    ] {
        app.post(&url(e0, "select"), &bad, Some(&owner)).await.assert(400);
    }
    app.post(&url(e0, "decline"), &json!({"reasonCode": "meets_policy"}), Some(&owner)).await.assert(400);
    app.post(&url(e0, "withdraw"), &json!({"basis": "bored"}), Some(&owner)).await.assert(400);

    let r = app.post(&url(e0, "select"), &json!({"reasonCode": "priority_group"}), Some(&owner)).await;
    r.assert(200);
    assert_eq!(r.json(), json!({"id": e0, "state": "selected"}));
    let again = app.post(&url(e0, "select"), &json!({"reasonCode": "priority_group"}), Some(&owner)).await;
    again.assert(409);
    assert_eq!(again.code(), "invalid_transition");

    // Decline: waiting or selected, but not with an issued invitation.
    app.post(&url(e1, "decline"), &json!({"reasonCode": "not_eligible"}), Some(&owner)).await.assert(200);
    app.post(&url(e1, "decline"), &json!({"reasonCode": "not_eligible"}), Some(&owner)).await.assert(409);
    app.post(&url(e1, "select"), &json!({"reasonCode": "meets_policy"}), Some(&owner)).await.assert(409);
    app.issue(&owner, program, e0).await;
    let r = app.post(&url(e0, "decline"), &json!({"reasonCode": "capacity_reached"}), Some(&owner)).await;
    r.assert(409);
    assert_eq!(r.code(), "invalid_transition");

    // The owner-recorded withdrawal is the applicant's transition: it revokes the issued
    // invitation, and repeating it answers the same.
    let r = app.post(&url(e0, "withdraw"), &json!({"basis": "applicant_request"}), Some(&owner)).await;
    r.assert(200);
    assert_eq!(r.json()["state"], "withdrawn");
    app.post(&url(e0, "withdraw"), &json!({"basis": "applicant_request"}), Some(&owner)).await.assert(200);
    app.post(&url(e1, "withdraw"), &json!({"basis": "owner_policy"}), Some(&owner)).await.assert(409);
    app.post(&url(e2, "decline"), &json!({"reasonCode": "duplicate_person"}), Some(&owner)).await.assert(200);

    let db = app.db().await;
    let inv: String = db.query_one("SELECT state FROM invitations WHERE entry_id = $1", &[&e0]).await.unwrap().get(0);
    assert_eq!(inv, "revoked");
    let rows =
        db.query("SELECT event_type, details FROM audit_events WHERE entry_id = $1 ORDER BY id", &[&e0]).await.unwrap();
    let types: Vec<&str> = rows.iter().map(|r| r.get(0)).collect();
    assert_eq!(
        types,
        ["signup", "selected", "invite_issued", "withdrawn"],
        "one event per change, none for the repeat"
    );
    let selected: Value = rows[1].get(1);
    assert_eq!(selected["reasonCode"], "priority_group");
    let withdrawn: Value = rows[3].get(1);
    assert_eq!(withdrawn["basis"], "applicant_request");
}

#[tokio::test]
async fn export_has_every_entry_no_codes_and_neutralized_formula_cells() {
    let app = TestApp::spawn().await;
    let (owner, _, program) = queue_of(&app, "export", 1).await;
    for email in ["=cmd@example.com", "+sum@example.com", "-neg@example.com"] {
        app.signup("export", email).await.assert(202);
    }
    let entry = app.entry_id(program, "u0@example.com").await;
    app.select(&owner, program, entry).await.assert(200);
    let (_, code) = app.issue(&owner, program, entry).await;

    let r = app.get(&format!("/api/owner/programs/{program}/entries.csv"), Some(&owner)).await;
    r.assert(200);
    assert!(r.header("content-type").unwrap().starts_with("text/csv"));
    assert_eq!(r.header("cache-control"), Some("private, no-store"));
    assert!(!r.text.contains(&code));
    let lines: Vec<&str> = r.text.lines().collect();
    assert_eq!(lines[0], "id,email,state,created_at,notice_version,permission_at");
    assert_eq!(lines.len(), 5);
    assert!(lines[1].starts_with(&format!("{entry},u0@example.com,invited,")));
    for (line, email) in lines[2..].iter().zip(["=cmd@example.com", "+sum@example.com", "-neg@example.com"]) {
        let cell = line.split(',').nth(1).unwrap();
        assert_eq!(cell, format!("'{email}"), "formula cells get a leading quote");
    }
    let db = app.db().await;
    let digest: Vec<u8> = db.query_one("SELECT token_sha256 FROM invitations", &[]).await.unwrap().get(0);
    assert!(!r.text.to_lowercase().contains(&hex(&digest)));
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[tokio::test]
async fn strangers_foreign_and_revoked_owners_get_the_same_404_on_every_owner_route() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let (program, entry, invitation, _) = app.invited(&owner, ws, "guarded", "gus@example.com").await;
    let (foreign, _) = app.owner("foreign@example.com").await;
    let stranger = app.user("stranger@example.com").await;
    let not_found = app.get("/api/nothing", None).await.text;
    let p = format!("/api/owner/programs/{program}");
    let gets = [
        format!("{p}/entries"),
        format!("{p}/entries/{entry}"),
        format!("{p}/entries.csv"),
        format!("{p}/content"),
        format!("{p}/events"),
    ];
    let key = Uuid::new_v4();
    let posts = [
        (format!("{p}/entries/{entry}/select"), json!({"reasonCode": "meets_policy"})),
        (format!("{p}/entries/{entry}/decline"), json!({"reasonCode": "not_eligible"})),
        (format!("{p}/entries/{entry}/withdraw"), json!({"basis": "owner_policy"})),
        (format!("{p}/entries/{entry}/invitations"), json!({"requestKey": key, "expiresAt": "2099-01-01T00:00:00Z"})),
        (format!("{p}/entries/select-bulk"), json!({"count": 1, "reasonCode": "meets_policy"})),
        (
            format!("{p}/invitations/bulk"),
            json!({"requestKey": key, "entryIds": [entry], "expiresAt": "2099-01-01T00:00:00Z"}),
        ),
        (format!("/api/owner/invitations/{invitation}/delivery-record"), json!({"requestKey": key, "channel": "sms"})),
        (format!("/api/owner/invitations/{invitation}/revoke"), json!({})),
        (format!("/api/owner/grants/{}/revoke", Uuid::new_v4()), json!({})),
    ];
    let check = async |who: &User, label: &str| {
        for path in &gets {
            let r = app.get(path, Some(who)).await;
            assert_eq!((r.status.as_u16(), &r.text), (404, &not_found), "{label} GET {path}");
        }
        for (path, body) in &posts {
            let r = app.post(path, body, Some(who)).await;
            assert_eq!((r.status.as_u16(), &r.text), (404, &not_found), "{label} POST {path}");
        }
        let r = app.put(&format!("{p}/content"), &json!({"expectedRevision": 1, "body": "x"}), Some(who)).await;
        assert_eq!((r.status.as_u16(), &r.text), (404, &not_found), "{label} PUT content");
    };
    check(&stranger, "signed-in non-owner").await;
    check(&foreign, "owner of another workspace").await;
    let db = app.db().await;
    db.execute("UPDATE staff_members SET active = false WHERE clerk_user_id = $1", &[&owner.user_id]).await.unwrap();
    check(&owner, "revoked owner").await;

    let events: i64 = db.query_one("SELECT count(*) FROM audit_events", &[]).await.unwrap().get(0);
    let states: Vec<String> = db
        .query("SELECT state FROM entries UNION ALL SELECT state FROM invitations", &[])
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(states, ["invited", "issued"], "nothing changed");
    let before = events;
    db.execute("UPDATE staff_members SET active = true WHERE clerk_user_id = $1", &[&owner.user_id]).await.unwrap();
    app.get(&format!("{p}/entries"), Some(&owner)).await.assert(200);
    let after: i64 = db.query_one("SELECT count(*) FROM audit_events", &[]).await.unwrap().get(0);
    assert_eq!(before, after);
}
