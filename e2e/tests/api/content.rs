//! Private content (issue 4): GET is 404 before the first write; writes name the
//! revision they replace (0 creates revision 1); stale writes are 409; bodies are
//! 1–20 000 characters; the event records the revision, never the body.

use crate::support::TestApp;
use serde_json::json;
use shared::api::Content;

#[tokio::test]
async fn content_follows_the_revision_rules() {
    let app = TestApp::spawn().await;
    let (owner, _, program) = app.queue_of("content", 0).await;
    owner.try_content(program).await.expect_error(404, "not_found");

    let write = async |revision: i64, body: &str| owner.try_put_content(program, revision, body).await;
    write(1, "hello").await.expect_error(409, "stale_revision");
    let first: Content = write(0, "<b>first</b>").await.expect(200);
    assert_eq!(first.revision, 1);
    assert_eq!(first.body, "<b>first</b>", "stored as given, as text");
    write(0, "again").await.expect_error(409, "stale_revision");
    assert_eq!(write(1, "second").await.expect::<Content>(200).revision, 2);
    write(1, "lost update").await.assert(409);
    let read: Content = owner.try_content(program).await.expect(200);
    assert_eq!((read.revision, read.body.as_str()), (2, "second"));

    write(2, "").await.assert(400);
    write(2, &"x".repeat(20_001)).await.assert(400);
    write(-1, "x").await.assert(400);
    // A body without a revision: raw JSON, since `PutContentRequest` cannot lack one.
    owner.put(&format!("/api/owner/programs/{program}/content"), &json!({"body": "x"})).await.assert(400);
    // 20 000 characters (not bytes) is the bound: multi-byte text fits while under it.
    assert_eq!(write(2, &"é".repeat(10_000)).await.expect::<Content>(200).revision, 3);

    let details: Vec<String> = app
        .column("SELECT details::text FROM audit_events WHERE event_type = 'content_updated' ORDER BY id", &[])
        .await;
    assert_eq!(details, [r#"{"revision": 1}"#, r#"{"revision": 2}"#, r#"{"revision": 3}"#]);
}
