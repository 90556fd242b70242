//! The audit history (issue 4): every owner mutation writes exactly one event, with ids,
//! states and reason codes only; the owner reads it paged in id order.

use crate::queue::queue_of;
use crate::support::{Reply, TestApp, User};
use serde_json::{json, Value};
use uuid::Uuid;

/// Every event of the program, through the paged API.
async fn all_events(app: &TestApp, owner: &User, program: Uuid) -> Vec<Value> {
    let mut events = Vec::new();
    let mut cursor = String::new();
    loop {
        let r = app.get(&format!("/api/owner/programs/{program}/events?limit=3{cursor}"), Some(owner)).await;
        r.assert(200);
        let page = r.json();
        events.extend(page["events"].as_array().unwrap().iter().cloned());
        match page["nextCursor"].as_str() {
            Some(c) => cursor = format!("&cursor={c}"),
            None => return events,
        }
    }
}

#[tokio::test]
async fn every_mutation_writes_exactly_one_event_without_email_or_code() {
    let app = TestApp::spawn().await;
    let (owner, _, program) = queue_of(&app, "audited", 4).await;
    let mut e = Vec::new();
    for i in 0..4 {
        e.push(app.entry_id(program, &format!("u{i}@example.com")).await);
    }
    let p = format!("/api/owner/programs/{program}");
    let mut codes = Vec::new();
    let before = all_events(&app, &owner, program).await;
    let signups = before.iter().filter(|e| e["type"] == "signup").count();
    assert_eq!(signups, 4);
    let mut count = before.len();

    let mut expect = async |reply: Reply, status: u16, kind: &str| {
        reply.assert(status);
        if let Some(code) = reply.json().get("code").and_then(Value::as_str) {
            codes.push(code.to_owned());
        }
        let events = all_events(&app, &owner, program).await;
        assert_eq!(events.len(), count + 1, "exactly one event for {kind}");
        assert_eq!(events.last().unwrap()["type"], kind);
        assert_eq!(events.last().unwrap()["actorKind"], "owner");
        count += 1;
        reply.json()
    };
    expect(app.select(&owner, program, e[0]).await, 200, "selected").await;
    expect(
        app.post(&format!("{p}/entries/{}/decline", e[1]), &json!({"reasonCode": "not_eligible"}), Some(&owner)).await,
        200,
        "declined",
    )
    .await;
    let issued = expect(app.issue_with(&owner, program, e[0], Uuid::new_v4(), 3).await, 201, "invite_issued").await;
    let invitation = issued["invitation"]["id"].as_str().unwrap().to_owned();
    expect(app.record_delivery(&owner, invitation.parse().unwrap()).await, 200, "delivery_recorded").await;
    expect(
        app.post(&format!("/api/owner/invitations/{invitation}/revoke"), &json!({}), Some(&owner)).await,
        200,
        "invite_revoked",
    )
    .await;
    expect(
        app.post(&format!("{p}/entries/{}/withdraw", e[2]), &json!({"basis": "owner_policy"}), Some(&owner)).await,
        200,
        "withdrawn",
    )
    .await;
    expect(
        app.put(&format!("{p}/content"), &json!({"expectedRevision": 0, "body": "secret text"}), Some(&owner)).await,
        200,
        "content_updated",
    )
    .await;
    expect(
        app.post(
            &format!("{p}/entries/select-bulk"),
            &json!({"count": 1, "reasonCode": "capacity_available"}),
            Some(&owner),
        )
        .await,
        200,
        "selected",
    )
    .await;
    // Reads and refused requests write nothing.
    app.get(&format!("{p}/entries/{}", e[0]), Some(&owner)).await.assert(200);
    app.select(&owner, program, e[0]).await.assert(409);
    assert_eq!(all_events(&app, &owner, program).await.len(), count);

    let events = all_events(&app, &owner, program).await;
    let ids: Vec<i64> = events.iter().map(|e| e["id"].as_i64().unwrap()).collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "id order");
    for event in &events {
        let details = event["details"].to_string();
        assert!(!details.contains('@'), "no email in {details}");
        assert!(!details.contains("secret text"), "no content in {details}");
        for code in &codes {
            assert!(!details.contains(code.as_str()), "no code in {details}");
        }
    }
    assert_eq!(codes.len(), 1);
    let selected = events.iter().find(|e| e["type"] == "selected").unwrap();
    assert_eq!(selected["details"]["reasonCode"], "meets_policy");
    assert_eq!(selected["entryId"], e[0].to_string());
}

#[tokio::test]
async fn events_are_paged_in_id_order_with_an_opaque_cursor() {
    let app = TestApp::spawn().await;
    let (owner, _, program) = queue_of(&app, "history", 5).await;
    let url = format!("/api/owner/programs/{program}/events");
    let all = app.get(&url, Some(&owner)).await.json();
    let all: Vec<Value> = all["events"].as_array().unwrap().clone();
    assert!(all.len() >= 6, "the program's setup and five signups");
    let mut paged = Vec::new();
    let mut query = "?limit=4".to_owned();
    loop {
        let page = app.get(&format!("{url}{query}"), Some(&owner)).await.json();
        let events = page["events"].as_array().unwrap();
        assert!(events.len() <= 4);
        paged.extend(events.iter().cloned());
        match page["nextCursor"].as_str() {
            Some(c) => query = format!("?limit=4&cursor={c}"),
            None => break,
        }
    }
    assert_eq!(paged, all, "pages concatenate to the whole history");
    let ids: Vec<i64> = all.iter().map(|e| e["id"].as_i64().unwrap()).collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "id order");
    assert_eq!(all.iter().filter(|e| e["type"] == "signup").count(), 5);
    for bad in ["?limit=0", "?limit=101", "?cursor=%21", "?cursor=AAAA", "?since=1"] {
        app.get(&format!("{url}{bad}"), Some(&owner)).await.assert(400);
    }
}
