//! The owner's queue as typed steps: pages, search, entry detail, the export, the
//! audit history and the decisions (select, decline, withdraw, bulk select).

use super::{Owner, Reply, TestApp};
use serde::Serialize;
use shared::api::{
    AuditEvent, BulkSelectRequest, BulkSelectResponse, DeclineRequest, EntryDetail, EntryPage, EntrySearch,
    EntryStateResponse, EventPage, OwnerWithdrawRequest, SelectRequest,
};
use uuid::Uuid;

impl Owner {
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
    pub async fn all_events(&self, program: Uuid, limit: u32) -> Vec<AuditEvent> {
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

    /// An owner with an open program `slug` whose one entry (`u0@example.com`) is
    /// selected; returns (owner, program id, entry id).
    pub async fn one_selected(&self, slug: &str) -> (Owner, Uuid, Uuid) {
        let (owner, _, program) = self.queue_of(slug, 1).await;
        let entry = self.entry_id(program, "u0@example.com").await;
        owner.select(program, entry).await;
        (owner, program, entry)
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
