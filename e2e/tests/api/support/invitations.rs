//! Invitations and grants as typed steps: issue (one and in bulk), delivery records,
//! revocation, and the whole way from a signup to a code in the recipient's hands.

use super::{Owner, Reply};
use serde::Serialize;
use serde_json::json;
use shared::api::{
    BulkIssueRequest, DeliveryRecordRequest, Grant, Invitation, IssueInvitationRequest, IssuedInvitation,
};
use uuid::Uuid;

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
#[derive(Clone)]
pub struct Invited {
    pub program: Uuid,
    pub entry: Uuid,
    pub invitation: Uuid,
    pub code: String,
}

impl Owner {
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
        self.set_access_enabled(program, true).await;
        let entry = self.selected(program, slug, email).await;
        let issued = self.issue(program, entry).await;
        self.record_delivery(issued.invitation.id).await;
        Invited { program, entry, invitation: issued.invitation.id, code: issued.code.unwrap() }
    }
}
