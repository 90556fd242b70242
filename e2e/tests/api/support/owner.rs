//! An owner speaking the owner routes (`/api/owner/…`), one method per operation.
//!
//! Policy: `verb(..)` performs the operation, asserts its success status and returns the
//! decoded answer, so arranging reads as a list of steps; `try_verb(..)` returns the
//! [`Reply`] for a test that expects a refusal or inspects the raw answer.

use super::{Reply, TestApp, User};
use serde::Serialize;
use serde_json::{json, Value};
use shared::api::{
    BulkIssueRequest, BulkSelectRequest, BulkSelectResponse, Content, CreateProgramRequest, DeclineRequest,
    DeliveryRecordRequest, EntryDetail, EntryPage, EntrySearch, EntryStateResponse, EventPage, Grant, Invitation,
    IssueInvitationRequest, IssuedInvitation, Notice, OwnerWithdrawRequest, OwnersResponse, Program, ProgramStats,
    PublishNoticeRequest, PutContentRequest, SelectRequest, Workspace,
};
use uuid::Uuid;

/// Caps for a program made by [`Owner::program_with`].
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

/// The notice [`Owner::publish_notice`] publishes.
pub fn notice() -> PublishNoticeRequest {
    PublishNoticeRequest {
        purpose: PURPOSE.into(),
        contact_text: "We will email you once.".into(),
        retention_text: "Kept 12 months.".into(),
    }
}

/// An issue request with a fresh key, expiring `days` from now.
pub fn expiring_in(days: i64) -> IssueInvitationRequest {
    IssueInvitationRequest { request_key: Uuid::new_v4(), expires_at: in_days(days) }
}

/// An RFC 3339 instant `days` from now.
pub fn in_days(days: i64) -> String {
    (chrono::Utc::now() + chrono::Duration::days(days)).to_rfc3339()
}

/// A delivery record with a fresh key.
pub fn delivery(channel: &str, reference: Option<&str>) -> DeliveryRecordRequest {
    DeliveryRecordRequest { request_key: Uuid::new_v4(), channel: channel.into(), reference: reference.map(Into::into) }
}

/// Everything up to a code in the recipient's hands (see [`Owner::invited`]).
#[derive(Debug, Clone)]
pub struct Invited {
    pub program: Uuid,
    pub entry: Uuid,
    pub invitation: Uuid,
    pub code: String,
}

/// A signed-in user calling the owner routes; derefs to the [`User`].
#[derive(Clone)]
pub struct Owner {
    app: TestApp,
    pub user: User,
}

impl std::ops::Deref for Owner {
    type Target = User;
    fn deref(&self) -> &User {
        &self.user
    }
}

impl Owner {
    pub(super) fn new(app: TestApp, user: User) -> Owner {
        Owner { app, user }
    }

    pub async fn get(&self, path: &str) -> Reply {
        self.app.get(path, Some(&self.user)).await
    }

    pub async fn post(&self, path: &str, body: &(impl Serialize + ?Sized)) -> Reply {
        self.app.post(path, body, Some(&self.user)).await
    }

    pub async fn put(&self, path: &str, body: &(impl Serialize + ?Sized)) -> Reply {
        self.app.put(path, body, Some(&self.user)).await
    }

    pub async fn patch(&self, path: &str, body: &(impl Serialize + ?Sized)) -> Reply {
        self.app.patch(path, body, Some(&self.user)).await
    }

    // ------------------------------------------------------------ workspaces

    pub async fn workspaces(&self) -> Vec<Workspace> {
        self.get("/api/owner/workspaces").await.expect(200)
    }

    pub async fn owners(&self, ws: Uuid) -> OwnersResponse {
        self.get(&format!("/api/owner/workspaces/{ws}/owners")).await.expect(200)
    }

    // ------------------------------------------------------------ programs

    pub async fn try_create_program(&self, body: &(impl Serialize + ?Sized)) -> Reply {
        self.post("/api/owner/programs", body).await
    }

    /// Creates a (closed, notice-less) program.
    pub async fn create_program(&self, ws: Uuid, slug: &str, caps: Caps) -> Program {
        let body = CreateProgramRequest {
            workspace_id: ws,
            slug: slug.into(),
            purpose: PURPOSE.into(),
            queue_cap: caps.queue,
            hourly_cap: caps.hourly,
            seat_cap: caps.seats,
            max_invite_days: caps.max_invite_days,
        };
        self.try_create_program(&body).await.expect(201)
    }

    pub async fn programs(&self, ws: Uuid) -> Vec<Program> {
        self.get(&format!("/api/owner/programs?workspaceId={ws}")).await.expect(200)
    }

    pub async fn program(&self, program: Uuid) -> Program {
        self.get(&format!("/api/owner/programs/{program}")).await.expect(200)
    }

    /// PATCHes a program with its current revision (the `changes` are the wire fields).
    pub async fn try_patch_program(&self, program: Uuid, mut changes: Value) -> Reply {
        changes["expectedRevision"] = json!(self.program(program).await.revision);
        self.patch(&format!("/api/owner/programs/{program}"), &changes).await
    }

    pub async fn patch_program(&self, program: Uuid, changes: Value) -> Program {
        self.try_patch_program(program, changes).await.expect(200)
    }

    pub async fn try_publish_notice(&self, program: Uuid, body: &(impl Serialize + ?Sized)) -> Reply {
        self.post(&format!("/api/owner/programs/{program}/notices"), body).await
    }

    /// Publishes the next notice version (with the program's purpose).
    pub async fn publish_notice(&self, program: Uuid) -> Notice {
        self.try_publish_notice(program, &notice()).await.expect(201)
    }

    /// A program with a notice and signup open; returns its id.
    pub async fn program_with(&self, ws: Uuid, slug: &str, caps: Caps) -> Uuid {
        let id = self.create_program(ws, slug, caps).await.id;
        self.publish_notice(id).await;
        self.patch_program(id, json!({"signupOpen": true})).await;
        id
    }

    pub async fn open_program(&self, ws: Uuid, slug: &str) -> Uuid {
        self.program_with(ws, slug, Caps::default()).await
    }

    pub async fn stats(&self, program: Uuid) -> ProgramStats {
        self.get(&format!("/api/owner/programs/{program}/stats")).await.expect(200)
    }

    // ------------------------------------------------------------ content

    pub async fn try_content(&self, program: Uuid) -> Reply {
        self.get(&format!("/api/owner/programs/{program}/content")).await
    }

    pub async fn try_put_content(&self, program: Uuid, expected_revision: i64, body: &str) -> Reply {
        let request = PutContentRequest { expected_revision, body: body.into() };
        self.put(&format!("/api/owner/programs/{program}/content"), &request).await
    }

    /// Writes the program's private content (creating or replacing it).
    pub async fn put_content(&self, program: Uuid, body: &str) -> Content {
        let current = self.try_content(program).await;
        let revision = if current.status == 200 { current.body::<Content>().revision } else { 0 };
        self.try_put_content(program, revision, body).await.expect(200)
    }

    // ------------------------------------------------------------ the queue

    /// One page of the queue; `query` is the query string with its `?` (or empty).
    pub async fn try_entries(&self, program: Uuid, query: &str) -> Reply {
        self.get(&format!("/api/owner/programs/{program}/entries{query}")).await
    }

    pub async fn entries(&self, program: Uuid, query: &str) -> EntryPage {
        self.try_entries(program, query).await.expect(200)
    }

    pub async fn try_search(&self, program: Uuid, search: &(impl Serialize + ?Sized)) -> Reply {
        self.post(&format!("/api/owner/programs/{program}/entries/search"), search).await
    }

    pub async fn search(&self, program: Uuid, search: &EntrySearch) -> EntryPage {
        self.try_search(program, search).await.expect(200)
    }

    pub async fn entry(&self, program: Uuid, entry: Uuid) -> EntryDetail {
        self.get(&format!("/api/owner/programs/{program}/entries/{entry}")).await.expect(200)
    }

    pub async fn export(&self, program: Uuid) -> Reply {
        self.get(&format!("/api/owner/programs/{program}/entries.csv")).await
    }

    /// Every event of the program, read through the paged API (`limit` per page).
    pub async fn all_events(&self, program: Uuid, limit: u32) -> Vec<shared::api::AuditEvent> {
        let mut events = Vec::new();
        let mut query = format!("?limit={limit}");
        loop {
            let page = self.events(program, &query).await;
            assert!(page.events.len() <= limit as usize);
            events.extend(page.events);
            match page.next_cursor {
                Some(c) => query = format!("?limit={limit}&cursor={c}"),
                None => return events,
            }
        }
    }

    pub async fn events(&self, program: Uuid, query: &str) -> EventPage {
        self.get(&format!("/api/owner/programs/{program}/events{query}")).await.expect(200)
    }

    // ------------------------------------------------------------ decisions

    /// The path of an action on an entry (`select`, `decline`, `withdraw`, `invitations`).
    pub fn entry_path(program: Uuid, entry: Uuid, action: &str) -> String {
        format!("/api/owner/programs/{program}/entries/{entry}/{action}")
    }

    pub async fn try_select(&self, program: Uuid, entry: Uuid, reason: &str) -> Reply {
        self.post(&Self::entry_path(program, entry, "select"), &SelectRequest { reason_code: reason.into() }).await
    }

    /// Selects a waiting entry (`meets_policy`).
    pub async fn select(&self, program: Uuid, entry: Uuid) -> EntryStateResponse {
        self.try_select(program, entry, "meets_policy").await.expect(200)
    }

    pub async fn try_decline(&self, program: Uuid, entry: Uuid, reason: &str) -> Reply {
        self.post(&Self::entry_path(program, entry, "decline"), &DeclineRequest { reason_code: reason.into() }).await
    }

    pub async fn decline(&self, program: Uuid, entry: Uuid, reason: &str) -> EntryStateResponse {
        self.try_decline(program, entry, reason).await.expect(200)
    }

    pub async fn try_withdraw(&self, program: Uuid, entry: Uuid, basis: &str) -> Reply {
        self.post(&Self::entry_path(program, entry, "withdraw"), &OwnerWithdrawRequest { basis: basis.into() }).await
    }

    /// Records the applicant's withdrawal (or an owner-policy one) for an entry.
    pub async fn withdraw(&self, program: Uuid, entry: Uuid, basis: &str) -> EntryStateResponse {
        self.try_withdraw(program, entry, basis).await.expect(200)
    }

    pub async fn try_select_bulk(&self, program: Uuid, body: &(impl Serialize + ?Sized)) -> Reply {
        self.post(&format!("/api/owner/programs/{program}/entries/select-bulk"), body).await
    }

    pub async fn select_bulk(&self, program: Uuid, count: i32, reason: &str) -> Vec<Uuid> {
        let body = BulkSelectRequest { count, reason_code: reason.into() };
        self.try_select_bulk(program, &body).await.expect::<BulkSelectResponse>(200).selected
    }

    // ------------------------------------------------------------ invitations and grants

    pub async fn try_issue(&self, program: Uuid, entry: Uuid, request: &(impl Serialize + ?Sized)) -> Reply {
        self.post(&Self::entry_path(program, entry, "invitations"), request).await
    }

    /// Issues an invitation expiring in 7 days: the one answer with the code.
    pub async fn issue(&self, program: Uuid, entry: Uuid) -> IssuedInvitation {
        let issued: IssuedInvitation = self.try_issue(program, entry, &expiring_in(7)).await.expect(201);
        assert!(issued.code.is_some(), "a fresh invitation comes with its code");
        issued
    }

    /// The 201 answer is CSV with the codes; a replay is a [`shared::api::BulkIssueReceipt`].
    pub async fn try_issue_bulk(&self, program: Uuid, body: &(impl Serialize + ?Sized)) -> Reply {
        self.post(&format!("/api/owner/programs/{program}/invitations/bulk"), body).await
    }

    pub fn bulk_request(entries: &[Uuid], days: i64) -> BulkIssueRequest {
        BulkIssueRequest { request_key: Uuid::new_v4(), entry_ids: entries.to_vec(), expires_at: in_days(days) }
    }

    pub async fn try_record_delivery(&self, invitation: Uuid, record: &(impl Serialize + ?Sized)) -> Reply {
        self.post(&format!("/api/owner/invitations/{invitation}/delivery-record"), record).await
    }

    pub async fn record_delivery(&self, invitation: Uuid) -> Invitation {
        self.try_record_delivery(invitation, &delivery("email", Some("sent by hand"))).await.expect(200)
    }

    pub async fn try_revoke_invitation(&self, invitation: Uuid) -> Reply {
        self.post(&format!("/api/owner/invitations/{invitation}/revoke"), &json!({})).await
    }

    pub async fn revoke_invitation(&self, invitation: Uuid) -> Invitation {
        self.try_revoke_invitation(invitation).await.expect(200)
    }

    pub async fn try_revoke_grant(&self, grant: Uuid) -> Reply {
        self.post(&format!("/api/owner/grants/{grant}/revoke"), &json!({})).await
    }

    pub async fn revoke_grant(&self, grant: Uuid) -> Grant {
        self.try_revoke_grant(grant).await.expect(200)
    }

    // ------------------------------------------------------------ whole flows

    /// Signs `email` up to `slug` and selects the entry; returns its id.
    pub async fn selected(&self, program: Uuid, slug: &str, email: &str) -> Uuid {
        self.app.signup(slug, email).await;
        let entry = self.app.entry_id(program, email).await;
        self.select(program, entry).await;
        entry
    }

    /// Everything up to a code in the recipient's hands: an open program with content and
    /// access on, the recipient's entry selected, an invitation issued and its delivery
    /// recorded.
    pub async fn invited(&self, ws: Uuid, slug: &str, email: &str) -> Invited {
        let program = self.open_program(ws, slug).await;
        self.put_content(program, &format!("Private notes for {slug}")).await;
        self.patch_program(program, json!({"accessEnabled": true})).await;
        let entry = self.selected(program, slug, email).await;
        let issued = self.issue(program, entry).await;
        self.record_delivery(issued.invitation.id).await;
        Invited { program, entry, invitation: issued.invitation.id, code: issued.code.unwrap() }
    }
}

impl TestApp {
    /// An owner with an open program `slug` and `n` signups `u{i}@example.com`, in
    /// order; returns (owner, workspace id, program id).
    pub async fn queue_of(&self, slug: &str, n: usize) -> (Owner, Uuid, Uuid) {
        let (owner, ws) = self.owner("owner@example.com").await;
        let program = owner.open_program(ws, slug).await;
        for i in 0..n {
            self.signup(slug, &format!("u{i}@example.com")).await;
        }
        (owner, ws, program)
    }

    /// The ids of the first `n` entries that [`TestApp::queue_of`] made, in order.
    pub async fn queued_entries(&self, program: Uuid, n: usize) -> Vec<Uuid> {
        let mut out = Vec::new();
        for i in 0..n {
            out.push(self.entry_id(program, &format!("u{i}@example.com")).await);
        }
        out
    }
}
