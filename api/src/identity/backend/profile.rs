//! An owner's display name from the Backend API's User (`GET /v1/users/{id}`): the first
//! and last name where Clerk has them, else the primary email address. Used only in
//! owner-audience responses; the name is never logged, stored or put in an error.

use super::{BackendClient, LookupError};
use serde::Deserialize;

/// Longer names are cut (in characters) so that a page stays a page.
const MAX_CHARS: usize = 120;

#[derive(Deserialize)]
struct Profile {
    first_name: Option<String>,
    last_name: Option<String>,
    primary_email_address_id: Option<String>,
    #[serde(default)]
    email_addresses: Vec<ProfileEmail>,
}

#[derive(Deserialize)]
struct ProfileEmail {
    id: String,
    email_address: String,
}

impl Profile {
    fn display_name(self) -> Option<String> {
        let parts: Vec<String> = [self.first_name, self.last_name]
            .into_iter()
            .flatten()
            .map(|p| p.trim().to_owned())
            .filter(|p| !p.is_empty())
            .collect();
        let name = if parts.is_empty() {
            let primary = self.primary_email_address_id;
            let mut emails = self.email_addresses;
            let at = emails.iter().position(|e| primary.as_deref() == Some(e.id.as_str())).unwrap_or(0);
            (at < emails.len()).then(|| emails.swap_remove(at).email_address.trim().to_owned())?
        } else {
            parts.join(" ")
        };
        let name: String = name.chars().filter(|c| !c.is_control()).take(MAX_CHARS).collect();
        (!name.is_empty()).then_some(name)
    }
}

impl BackendClient {
    /// The user's display name; `Ok(None)` when the user is gone or has neither a name
    /// nor an email. A failure is counted as `identity`/`names_unavailable`.
    pub async fn display_name(&self, user_id: &str) -> Result<Option<String>, LookupError> {
        let result = self.fetch_display_name(user_id).await;
        if matches!(result, Err(LookupError::Unavailable(_))) {
            crate::metrics::count("identity", "names_unavailable");
        }
        result
    }

    async fn fetch_display_name(&self, user_id: &str) -> Result<Option<String>, LookupError> {
        match self.user::<Profile>(user_id).await {
            Ok(profile) => Ok(profile.display_name()),
            Err(LookupError::UserGone) => Ok(None),
            Err(e) => Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn profile(first: Option<&str>, last: Option<&str>, primary: Option<&str>) -> Profile {
        Profile {
            first_name: first.map(str::to_owned),
            last_name: last.map(str::to_owned),
            primary_email_address_id: primary.map(str::to_owned),
            email_addresses: vec![
                ProfileEmail { id: "e1".into(), email_address: "one@example.com".into() },
                ProfileEmail { id: "e2".into(), email_address: "two@example.com".into() },
            ],
        }
    }

    #[test]
    fn a_name_wins_over_the_email_and_the_primary_email_over_the_others() {
        assert_eq!(profile(Some("Jo"), Some(" March "), None).display_name().as_deref(), Some("Jo March"));
        assert_eq!(profile(Some("Jo"), None, None).display_name().as_deref(), Some("Jo"));
        assert_eq!(profile(Some(" "), None, Some("e2")).display_name().as_deref(), Some("two@example.com"));
        assert_eq!(profile(None, None, None).display_name().as_deref(), Some("one@example.com"));
        let empty = Profile { email_addresses: Vec::new(), ..profile(None, None, None) };
        assert_eq!(empty.display_name(), None);
    }
}
