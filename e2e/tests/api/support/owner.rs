//! An owner speaking the owner routes (`/api/owner/…`), one method per operation: the
//! workspace, programs, notices and content here; the queue in [`super::queue`];
//! invitations and grants in [`super::invitations`].
//!
//! Policy: `verb(..)` performs the operation, asserts its success status and returns the
//! decoded answer, so arranging reads as a list of steps; `try_verb(..)` returns the
//! [`Reply`] for a test that expects a refusal or inspects the raw answer.

use super::session::Session;
use super::{Reply, TestApp, User};
use serde::Serialize;
use shared::api::{
    Content, CreateProgramRequest, Notice, OwnersResponse, PatchProgramRequest, PowLevel, Program, ProgramStats,
    PublishNoticeRequest, PutContentRequest, Workspace,
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
        questions: Vec::new(),
    }
}

/// A program PATCH that changes nothing yet: name the fields to change and take the
/// rest from here (`..changes()`); [`Owner::patch_program`] fills in the revision.
pub fn changes() -> PatchProgramRequest {
    PatchProgramRequest {
        expected_revision: 0,
        signup_open: None,
        access_enabled: None,
        queue_cap: None,
        hourly_cap: None,
        seat_cap: None,
        clerk: None,
        title: None,
        description: None,
        proof_of_work: None,
        embed_origins: None,
        join_with: None,
    }
}

/// A signed-in user calling the owner routes (whether or not they own anything).
#[derive(Clone)]
pub struct Owner(Session);

impl std::ops::Deref for Owner {
    type Target = Session;
    fn deref(&self) -> &Session {
        &self.0
    }
}

impl Owner {
    pub(super) fn new(app: TestApp, user: User) -> Owner {
        Owner(Session { app, user })
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

    /// PATCHes a program with its current revision (whatever `changes` says).
    pub async fn try_patch_program(&self, program: Uuid, changes: PatchProgramRequest) -> Reply {
        let request = PatchProgramRequest { expected_revision: self.program(program).await.revision, ..changes };
        self.patch(&format!("/api/owner/programs/{program}"), &request).await
    }

    pub async fn patch_program(&self, program: Uuid, changes: PatchProgramRequest) -> Program {
        self.try_patch_program(program, changes).await.expect(200)
    }

    pub async fn set_signup_open(&self, program: Uuid, open: bool) -> Program {
        self.patch_program(program, PatchProgramRequest { signup_open: Some(open), ..changes() }).await
    }

    pub async fn set_access_enabled(&self, program: Uuid, enabled: bool) -> Program {
        self.patch_program(program, PatchProgramRequest { access_enabled: Some(enabled), ..changes() }).await
    }

    pub async fn try_publish_notice(&self, program: Uuid, body: &(impl Serialize + ?Sized)) -> Reply {
        self.post(&format!("/api/owner/programs/{program}/notices"), body).await
    }

    /// Publishes the next notice version (with the program's purpose).
    pub async fn publish_notice(&self, program: Uuid) -> Notice {
        self.try_publish_notice(program, &notice()).await.expect(201)
    }

    /// A program with a notice and signup open, asking for no proof of work (the tests
    /// of admission speak to its rules; `pow.rs` turns the work on); returns its id.
    pub async fn program_with(&self, ws: Uuid, slug: &str, caps: Caps) -> Uuid {
        let id = self.create_program(ws, slug, caps).await.id;
        self.publish_notice(id).await;
        let open = PatchProgramRequest { signup_open: Some(true), proof_of_work: Some(PowLevel::Off), ..changes() };
        self.patch_program(id, open).await;
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
}
