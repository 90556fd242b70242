//! A signed-in person speaking the `/api/me` routes: own status, own entries,
//! withdrawal, redemption, private content. Same policy as the owner's: `verb` asserts
//! success and decodes, `try_verb` returns the reply.

use super::session::Session;
use super::{Reply, TestApp, User};
use serde_json::json;
use shared::api::{
    EarlyAccessContent, MeResponse, OwnEntry, OwnWaitlistStatus, RedeemRequest, RedeemResponse, WithdrawResponse,
};

/// A signed-in user calling the `/api/me` routes.
#[derive(Clone)]
pub struct Recipient(Session);

impl std::ops::Deref for Recipient {
    type Target = Session;
    fn deref(&self) -> &Session {
        &self.0
    }
}

impl Recipient {
    pub(super) fn new(app: TestApp, user: User) -> Recipient {
        Recipient(Session { app, user })
    }

    pub async fn me(&self) -> MeResponse {
        self.get("/api/me").await.expect(200)
    }

    pub async fn try_status(&self, slug: &str) -> Reply {
        self.get(&format!("/api/me/waitlist/{slug}")).await
    }

    pub async fn status(&self, slug: &str) -> OwnWaitlistStatus {
        self.try_status(slug).await.expect(200)
    }

    pub async fn try_entries(&self) -> Reply {
        self.get("/api/me/entries").await
    }

    pub async fn entries(&self) -> Vec<OwnEntry> {
        self.try_entries().await.expect(200)
    }

    pub async fn try_withdraw(&self, slug: &str) -> Reply {
        self.post(&format!("/api/me/waitlist/{slug}/withdraw"), &json!({})).await
    }

    pub async fn withdraw(&self, slug: &str) -> WithdrawResponse {
        self.try_withdraw(slug).await.expect(200)
    }

    pub async fn try_redeem(&self, code: &str) -> Reply {
        self.post("/api/me/invitations/redeem", &RedeemRequest::code(code)).await
    }

    pub async fn redeem(&self, code: &str) -> RedeemResponse {
        self.try_redeem(code).await.expect(200)
    }

    pub async fn try_early_access(&self, slug: &str) -> Reply {
        self.get(&format!("/api/me/early-access/{slug}")).await
    }

    pub async fn early_access(&self, slug: &str) -> EarlyAccessContent {
        self.try_early_access(slug).await.expect(200)
    }
}
