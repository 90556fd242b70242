//! Who administers an organization (issue 26 item 2): the user's role in it, from the
//! Backend API's list of the user's memberships (`GET /v1/users/{id}/organization_memberships`,
//! paged). A program may mirror grants into an organization only when the owner who saves
//! that setting is an `org:admin` there — otherwise an owner of one workspace could add
//! themselves (and their recipients) to another's organization. Asked at save, before any
//! transaction; the answer is never cached, logged or stored.

use super::{is_plausible_user_id, BackendClient, LookupError};
use reqwest::StatusCode;
use serde::Deserialize;

/// Memberships per page (Clerk allows up to 500).
const PAGE: usize = 100;
/// Pages read at most: a user in more organizations than this is not plausible, and the
/// lookup must stay bounded.
const MAX_PAGES: usize = 10;

#[derive(Deserialize)]
struct Page {
    data: Vec<Membership>,
    total_count: usize,
}

#[derive(Deserialize)]
struct Membership {
    role: String,
    organization: Organization,
}

#[derive(Deserialize)]
struct Organization {
    id: String,
}

impl BackendClient {
    /// The user's role in the organization `org` (`None`: not a member, or no such
    /// organization or user). Any other failure is `Unavailable`.
    pub async fn organization_role(&self, user_id: &str, org: &str) -> Result<Option<String>, LookupError> {
        if !is_plausible_user_id(user_id) || !shared::clerk_sync::organization_id_ok(org) {
            return Ok(None);
        }
        for page in 0..MAX_PAGES {
            let path = format!("/v1/users/{user_id}/organization_memberships?limit={PAGE}&offset={}", page * PAGE);
            let response = self.get(&path).await?;
            match response.status() {
                StatusCode::OK => {}
                StatusCode::NOT_FOUND => return Ok(None),
                other => {
                    return Err(LookupError::Unavailable(format!("memberships endpoint answered {}", other.as_u16())))
                }
            }
            let page_body: Page =
                response.json().await.map_err(|_| LookupError::Unavailable("unexpected memberships body".into()))?;
            if let Some(m) = page_body.data.iter().find(|m| m.organization.id == org) {
                return Ok(Some(m.role.clone()));
            }
            if page_body.data.len() < PAGE || (page + 1) * PAGE >= page_body.total_count {
                return Ok(None);
            }
        }
        Ok(None)
    }
}
