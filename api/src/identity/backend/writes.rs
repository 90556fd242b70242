//! The Backend API writes of "on grant, in Clerk" (issue 14): merge a key into the user's
//! public metadata, add and remove an organization membership. Each answers a
//! [`WriteOutcome`] the outbox handler turns into delivered / retry / failed; "already
//! so" answers (a member already, no such membership) count as done, so every call is
//! idempotent. Nothing here logs a user id or a response body.

use super::BackendClient;
use reqwest::StatusCode;
use serde_json::{json, Value};

/// What one write came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteOutcome {
    /// Done (or already so), with the status the provider answered.
    Done(u16),
    /// Worth trying again later: a 5xx or 429 (status), or no answer (`None`).
    Retry(Option<u16>),
    /// The provider refused it; trying again will not help.
    Refused(u16),
}

impl BackendClient {
    async fn send(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> Result<(u16, Value), ()> {
        let mut request = self.http.request(method, format!("{}{path}", self.base)).bearer_auth(&self.secret);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.map_err(|_| ())?;
        let status = response.status().as_u16();
        let body = response.json::<Value>().await.unwrap_or(Value::Null);
        Ok((status, body))
    }

    fn outcome(sent: Result<(u16, Value), ()>, done_codes: &[&str], done_statuses: &[StatusCode]) -> WriteOutcome {
        let Ok((status, body)) = sent else { return WriteOutcome::Retry(None) };
        let code = body["errors"][0]["code"].as_str().unwrap_or("");
        match status {
            200..=299 => WriteOutcome::Done(status),
            _ if done_codes.contains(&code) || done_statuses.iter().any(|s| s.as_u16() == status) => {
                WriteOutcome::Done(status)
            }
            429 | 500..=599 => WriteOutcome::Retry(Some(status)),
            _ => WriteOutcome::Refused(status),
        }
    }

    /// Sets (`true`) or deletes (`null`) `public_metadata.vestibule.programs.<slug>`;
    /// Clerk merges objects and deletes keys set to `null`.
    pub async fn set_program_metadata(&self, user_id: &str, slug: &str, on: bool) -> WriteOutcome {
        if !super::is_plausible_user_id(user_id) {
            return WriteOutcome::Refused(400);
        }
        let value = if on { Value::Bool(true) } else { Value::Null };
        let body = json!({"public_metadata": {"vestibule": {"programs": {slug: value}}}});
        let sent = self.send(reqwest::Method::PATCH, &format!("/v1/users/{user_id}/metadata"), Some(body)).await;
        Self::outcome(sent, &[], &[])
    }

    /// Adds the user to the organization with `role`; a member already is done.
    pub async fn add_membership(&self, org: &str, user_id: &str, role: &str) -> WriteOutcome {
        if !super::is_plausible_user_id(user_id) || !shared::clerk_sync::organization_id_ok(org) {
            return WriteOutcome::Refused(400);
        }
        let body = json!({"user_id": user_id, "role": role});
        let sent = self.send(reqwest::Method::POST, &format!("/v1/organizations/{org}/memberships"), Some(body)).await;
        Self::outcome(sent, &["already_a_member_in_organization"], &[])
    }

    /// Removes the user from the organization; not a member (404) is done.
    pub async fn remove_membership(&self, org: &str, user_id: &str) -> WriteOutcome {
        if !super::is_plausible_user_id(user_id) || !shared::clerk_sync::organization_id_ok(org) {
            return WriteOutcome::Refused(400);
        }
        let path = format!("/v1/organizations/{org}/memberships/{user_id}");
        let sent = self.send(reqwest::Method::DELETE, &path, None).await;
        Self::outcome(sent, &[], &[StatusCode::NOT_FOUND])
    }

    /// Whether the user is a member of the organization already (any role), from the
    /// user's memberships list, with the status Clerk answered; `Err` is the outcome to
    /// report when that is unknown.
    pub async fn is_member(&self, org: &str, user_id: &str) -> Result<(bool, u16), WriteOutcome> {
        if !super::is_plausible_user_id(user_id) {
            return Err(WriteOutcome::Refused(400));
        }
        let path = format!("/v1/users/{user_id}/organization_memberships?limit=500");
        let sent = self.send(reqwest::Method::GET, &path, None).await;
        let Ok((status @ 200..=299, body)) = &sent else { return Err(Self::outcome(sent, &[], &[])) };
        let member =
            body["data"].as_array().is_some_and(|d| d.iter().any(|m| m["organization"]["id"].as_str() == Some(org)));
        Ok((member, *status))
    }
}
