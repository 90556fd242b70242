//! Cohort codes as typed steps: the owner's create, list, read and revoke, and the
//! recipient's two-step redemption (the notice step, then the accepted notice).

use super::invitations::in_days;
use super::{Owner, Recipient, Reply};
use reqwest::Method;
use shared::api::RedeemRequest;
use shared::cohort::{CohortCode, CreateCohortCodeRequest, CreatedCohortCode, RedeemNoticeStep, RedeemReply};
use uuid::Uuid;

/// A create request for `max_uses` uses, expiring in three days.
pub fn cohort(label: &str, max_uses: i32) -> CreateCohortCodeRequest {
    CreateCohortCodeRequest { label: label.into(), max_uses, expires_at: in_days(3), note: None }
}

impl Owner {
    fn cohort_path(program: Uuid) -> String {
        format!("/api/owner/programs/{program}/cohort-codes")
    }

    pub async fn try_create_cohort_code(&self, program: Uuid, body: &(impl serde::Serialize + ?Sized)) -> Reply {
        self.post(&Self::cohort_path(program), body).await
    }

    pub async fn create_cohort_code(&self, program: Uuid, max_uses: i32) -> CreatedCohortCode {
        self.try_create_cohort_code(program, &cohort("Launch partners", max_uses)).await.expect(201)
    }

    pub async fn cohort_codes(&self, program: Uuid) -> Vec<CohortCode> {
        self.get(&Self::cohort_path(program)).await.expect(200)
    }

    pub async fn try_cohort_code(&self, program: Uuid, code: Uuid) -> Reply {
        self.get(&format!("{}/{code}", Self::cohort_path(program))).await
    }

    pub async fn try_revoke_cohort_code(&self, program: Uuid, code: Uuid) -> Reply {
        let path = format!("{}/{code}", Self::cohort_path(program));
        self.app.send(Method::DELETE, &path, None::<&()>, Some(&self.user)).await
    }
}

impl Recipient {
    /// Redeems with an accepted notice version (`permission: true`).
    pub async fn try_redeem_accepting(&self, code: &str, notice_version: i32) -> Reply {
        self.try_redeem_answering(code, notice_version, None).await
    }

    /// Redeems with an accepted notice version and `answers` to its questions.
    pub async fn try_redeem_answering(
        &self,
        code: &str,
        notice_version: i32,
        answers: Option<shared::questions::Answers>,
    ) -> Reply {
        let body =
            RedeemRequest { code: code.into(), notice_version: Some(notice_version), permission: Some(true), answers };
        self.post("/api/me/invitations/redeem", &body).await
    }

    /// The first step of a cohort code: the notice to accept.
    pub async fn notice_step(&self, code: &str) -> RedeemNoticeStep {
        match self.try_redeem(code).await.expect::<RedeemReply>(200) {
            RedeemReply::NoticeRequired(step) => step,
            other => panic!("expected the notice step, got {other:?}"),
        }
    }

    /// Both steps: see the notice, accept it; the grant is active.
    pub async fn redeem_cohort(&self, code: &str) -> RedeemReply {
        let step = self.notice_step(code).await;
        let reply: RedeemReply = self.try_redeem_accepting(code, step.notice.version).await.expect(200);
        assert!(reply.is_active(), "{reply:?}");
        reply
    }
}
