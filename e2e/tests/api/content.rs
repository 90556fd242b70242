//! Private content (issue 4): GET is 404 before the first write; writes name the
//! revision they replace (0 creates revision 1); stale writes are 409; bodies are
//! 1–20 000 characters; the event records the revision, never the body.

use crate::queue::queue_of;
use crate::support::TestApp;
use serde_json::json;

#[tokio::test]
async fn content_follows_the_revision_rules() {
    let app = TestApp::spawn().await;
    let (owner, _, program) = queue_of(&app, "content", 0).await;
    let url = format!("/api/owner/programs/{program}/content");
    let missing = app.get(&url, Some(&owner)).await;
    missing.assert(404);
    assert_eq!(missing.code(), "not_found");

    let stale = app.put(&url, &json!({"expectedRevision": 1, "body": "hello"}), Some(&owner)).await;
    stale.assert(409);
    assert_eq!(stale.code(), "stale_revision");
    let first = app.put(&url, &json!({"expectedRevision": 0, "body": "<b>first</b>"}), Some(&owner)).await;
    first.assert(200);
    assert_eq!(first.json()["revision"], 1);
    assert_eq!(first.json()["body"], "<b>first</b>", "stored as given, as text");
    let twice = app.put(&url, &json!({"expectedRevision": 0, "body": "again"}), Some(&owner)).await;
    twice.assert(409);
    assert_eq!(twice.code(), "stale_revision");
    let second = app.put(&url, &json!({"expectedRevision": 1, "body": "second"}), Some(&owner)).await;
    second.assert(200);
    assert_eq!(second.json()["revision"], 2);
    app.put(&url, &json!({"expectedRevision": 1, "body": "lost update"}), Some(&owner)).await.assert(409);
    let read = app.get(&url, Some(&owner)).await;
    read.assert(200);
    assert_eq!((read.json()["revision"].clone(), read.json()["body"].clone()), (json!(2), json!("second")));

    for bad in [
        json!({"expectedRevision": 2, "body": ""}),
        json!({"expectedRevision": 2, "body": "x".repeat(20_001)}),
        json!({"expectedRevision": -1, "body": "x"}),
        json!({"body": "x"}),
    ] {
        app.put(&url, &bad, Some(&owner)).await.assert(400);
    }
    // 20 000 characters (not bytes) is the bound: multi-byte text fits while under it.
    let max = "é".repeat(10_000);
    let r = app.put(&url, &json!({"expectedRevision": 2, "body": max}), Some(&owner)).await;
    r.assert(200);
    assert_eq!(r.json()["revision"], 3);

    let db = app.db().await;
    let rows = db
        .query("SELECT details::text FROM audit_events WHERE event_type = 'content_updated' ORDER BY id", &[])
        .await
        .unwrap();
    let details: Vec<String> = rows.iter().map(|r| r.get(0)).collect();
    assert_eq!(details, [r#"{"revision": 1}"#, r#"{"revision": 2}"#, r#"{"revision": 3}"#]);
}
