//! The public routes as typed steps: the signup form, the public program, the config,
//! and the uniform not-found answer that the private routes must be indistinguishable
//! from. Same policy as the owner's: `verb` asserts success, `try_verb` returns the reply.

use super::{Reply, TestApp};
use shared::api::{PublicProgram, SignupRequest, SignupResponse};
use uuid::Uuid;

/// A signup with a fresh request key for notice version 1, permission given.
pub fn signup_request(email: &str) -> SignupRequest {
    SignupRequest {
        request_key: Uuid::new_v4(),
        email: email.into(),
        notice_version: 1,
        permission: true,
        source: None,
        altcha: None,
        answers: Default::default(),
    }
}

impl TestApp {
    pub async fn try_signup_with(&self, slug: &str, request: &SignupRequest) -> Reply {
        self.post(&format!("/api/public/programs/{slug}/signups"), request, None).await
    }

    /// A public signup with a fresh request key for the current notice version 1.
    pub async fn try_signup(&self, slug: &str, email: &str) -> Reply {
        self.try_signup_with(slug, &signup_request(email)).await
    }

    /// A signup that must be received (202, `{"status": "received"}`).
    pub async fn signup(&self, slug: &str, email: &str) -> SignupResponse {
        let received: SignupResponse = self.try_signup(slug, email).await.expect(202);
        assert_eq!(received.status, "received");
        received
    }

    /// A signup with every field chosen by the test.
    pub async fn try_signup_as(&self, slug: &str, key: Uuid, email: &str, version: i32, permission: bool) -> Reply {
        let request = SignupRequest {
            request_key: key,
            email: email.into(),
            notice_version: version,
            permission,
            source: None,
            altcha: None,
            answers: Default::default(),
        };
        self.try_signup_with(slug, &request).await
    }

    pub async fn public_program(&self, slug: &str) -> PublicProgram {
        self.get(&format!("/api/public/programs/{slug}"), None).await.expect(200)
    }

    /// The text of the API's answer to a path that matches no route: what every private
    /// refusal must look like, byte for byte.
    pub async fn not_found_text(&self) -> String {
        let r = self.get("/api/nothing-here", None).await;
        r.expect_error(404, "not_found");
        r.text
    }
}
