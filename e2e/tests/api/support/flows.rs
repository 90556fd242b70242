//! Typed steps of the product's flows over the HTTP contract, so tests arrange state
//! the way a person would (`app.open_program(..)`, `app.issue(..)`), not through SQL.

use super::{Reply, TestApp, User};
use serde_json::{json, Value};
use uuid::Uuid;

/// Caps for a program made by [`TestApp::program_with`].
#[derive(Debug, Clone, Copy)]
pub struct Caps {
    pub queue: i32,
    pub hourly: i32,
    pub seats: i32,
    pub max_invite_days: i32,
}

impl Default for Caps {
    fn default() -> Self {
        Caps { queue: 1000, hourly: 1000, seats: 100, max_invite_days: 14 }
    }
}

pub const PURPOSE: &str = "Early access to the Vestibule beta";

impl TestApp {
    /// Creates a (closed, notice-less) program and returns its JSON.
    pub async fn create_program(&self, owner: &User, ws: Uuid, slug: &str, caps: Caps) -> Value {
        let body = json!({
            "workspaceId": ws, "slug": slug, "purpose": PURPOSE,
            "queueCap": caps.queue, "hourlyCap": caps.hourly, "seatCap": caps.seats, "maxInviteDays": caps.max_invite_days,
        });
        let r = self.post("/api/owner/programs", &body, Some(owner)).await;
        r.assert(201);
        r.json()
    }

    pub async fn program(&self, owner: &User, program: Uuid) -> Value {
        let r = self.get(&format!("/api/owner/programs/{program}"), Some(owner)).await;
        r.assert(200);
        r.json()
    }

    /// PATCHes a program with its current revision; returns the reply.
    pub async fn patch_program(&self, owner: &User, program: Uuid, mut changes: Value) -> Reply {
        let revision = self.program(owner, program).await["revision"].clone();
        changes["expectedRevision"] = revision;
        self.patch(&format!("/api/owner/programs/{program}"), &changes, Some(owner)).await
    }

    /// Publishes the next notice version (with the program's purpose); returns the version.
    pub async fn publish_notice(&self, owner: &User, program: Uuid) -> i64 {
        let body =
            json!({"purpose": PURPOSE, "contactText": "We will email you once.", "retentionText": "Kept 12 months."});
        let r = self.post(&format!("/api/owner/programs/{program}/notices"), &body, Some(owner)).await;
        r.assert(201);
        r.json()["version"].as_i64().unwrap()
    }

    /// A program with a notice and signup open; returns its id.
    pub async fn program_with(&self, owner: &User, ws: Uuid, slug: &str, caps: Caps) -> Uuid {
        let p = self.create_program(owner, ws, slug, caps).await;
        let id: Uuid = p["id"].as_str().unwrap().parse().unwrap();
        self.publish_notice(owner, id).await;
        self.patch_program(owner, id, json!({"signupOpen": true})).await.assert(200);
        id
    }

    pub async fn open_program(&self, owner: &User, ws: Uuid, slug: &str) -> Uuid {
        self.program_with(owner, ws, slug, Caps::default()).await
    }

    /// A public signup with a fresh request key for the current notice version 1.
    pub async fn signup(&self, slug: &str, email: &str) -> Reply {
        self.signup_with(slug, Uuid::new_v4(), email, 1, true).await
    }

    pub async fn signup_with(&self, slug: &str, key: Uuid, email: &str, version: i64, permission: bool) -> Reply {
        let body = json!({"requestKey": key, "email": email, "noticeVersion": version, "permission": permission});
        self.post(&format!("/api/public/programs/{slug}/signups"), &body, None).await
    }

    /// The id of the entry with this email, read from the database.
    pub async fn entry_id(&self, program: Uuid, email: &str) -> Uuid {
        let db = self.db().await;
        db.query_one("SELECT id FROM entries WHERE program_id = $1 AND email_key = $2", &[&program, &email])
            .await
            .expect("entry exists")
            .get(0)
    }

    pub async fn select(&self, owner: &User, program: Uuid, entry: Uuid) -> Reply {
        let body = json!({"reasonCode": "meets_policy"});
        self.post(&format!("/api/owner/programs/{program}/entries/{entry}/select"), &body, Some(owner)).await
    }

    /// Issues an invitation expiring in `days`; returns the reply (201 has the code).
    pub async fn issue_with(&self, owner: &User, program: Uuid, entry: Uuid, key: Uuid, days: i64) -> Reply {
        let expires = (chrono::Utc::now() + chrono::Duration::days(days)).to_rfc3339();
        let body = json!({"requestKey": key, "expiresAt": expires});
        self.post(&format!("/api/owner/programs/{program}/entries/{entry}/invitations"), &body, Some(owner)).await
    }

    /// Issues an invitation; returns (invitation id, code).
    pub async fn issue(&self, owner: &User, program: Uuid, entry: Uuid) -> (Uuid, String) {
        let r = self.issue_with(owner, program, entry, Uuid::new_v4(), 7).await;
        r.assert(201);
        let v = r.json();
        (v["invitation"]["id"].as_str().unwrap().parse().unwrap(), v["code"].as_str().unwrap().to_owned())
    }

    pub async fn record_delivery(&self, owner: &User, invitation: Uuid) -> Reply {
        let body = json!({"requestKey": Uuid::new_v4(), "channel": "email", "reference": "sent by hand"});
        self.post(&format!("/api/owner/invitations/{invitation}/delivery-record"), &body, Some(owner)).await
    }

    /// Writes the program's private content (creating or replacing it).
    pub async fn put_content(&self, owner: &User, program: Uuid, body: &str) -> Reply {
        let current = self.get(&format!("/api/owner/programs/{program}/content"), Some(owner)).await;
        let revision = if current.status == 200 { current.json()["revision"].as_i64().unwrap() } else { 0 };
        self.put(
            &format!("/api/owner/programs/{program}/content"),
            &json!({"expectedRevision": revision, "body": body}),
            Some(owner),
        )
        .await
    }

    pub async fn redeem(&self, user: &User, code: &str) -> Reply {
        self.post("/api/me/invitations/redeem", &json!({"code": code}), Some(user)).await
    }

    /// Everything up to a code in the recipient's hands: an open program with content and
    /// access on, the recipient's entry selected, an invitation issued and its delivery
    /// recorded. Returns (program id, entry id, invitation id, code).
    pub async fn invited(&self, owner: &User, ws: Uuid, slug: &str, email: &str) -> (Uuid, Uuid, Uuid, String) {
        let program = self.open_program(owner, ws, slug).await;
        self.put_content(owner, program, &format!("Private notes for {slug}")).await.assert(200);
        self.patch_program(owner, program, json!({"accessEnabled": true})).await.assert(200);
        self.signup(slug, email).await.assert(202);
        let entry = self.entry_id(program, email).await;
        self.select(owner, program, entry).await.assert(200);
        let (invitation, code) = self.issue(owner, program, entry).await;
        self.record_delivery(owner, invitation).await.assert(200);
        (program, entry, invitation, code)
    }
}
