//! Organizations and memberships in the store. An organization's creator (`created_by`)
//! becomes its first member with `org:admin`, Clerk's default creator role; a user is a
//! member of an organization at most once; deleting a user drops its memberships
//! ([`Store::delete_user`]). Lists are ordered by creation, newest first unless asked.

use rand::{distributions::Alphanumeric, Rng};

use super::{random_id, Store};
use crate::error::ClerkError;
use crate::model::now_ms;
use crate::model::organization::{Membership, MembershipView, Organization};
use crate::model::Metadata;

/// Clerk's default role for an organization's creator.
const CREATOR_ROLE: &str = "org:admin";

/// A validated `POST /v1/organizations` body.
#[derive(Debug)]
pub struct NewOrganization {
    pub name: String,
    /// Already checked against `^[a-z0-9-]+$`; derived from the name when absent.
    pub slug: Option<String>,
    pub created_by: Option<String>,
    pub max_allowed_memberships: u32,
    pub public_metadata: Metadata,
    pub private_metadata: Metadata,
}

/// One page of a membership list.
#[derive(Debug, Clone, Copy)]
pub struct Page {
    pub limit: usize,
    pub offset: usize,
    pub newest_first: bool,
}

/// `Acme, Inc.` → `acme-inc`.
fn slug_from_name(name: &str) -> String {
    let mut slug = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            slug.push(c.to_ascii_lowercase());
        } else if !slug.is_empty() && !slug.ends_with('-') {
            slug.push('-');
        }
    }
    let slug = slug.trim_end_matches('-');
    if slug.is_empty() {
        "organization".to_owned()
    } else {
        slug.to_owned()
    }
}

impl Store {
    fn slug_taken(&self, slug: &str) -> bool {
        self.organizations.values().any(|org| org.slug == slug)
    }

    pub fn create_organization(&mut self, new: NewOrganization) -> Result<Organization, ClerkError> {
        if let Some(creator) = &new.created_by {
            if !self.users.contains_key(creator) {
                return Err(ClerkError::creator_not_found());
            }
        }
        let slug = match new.slug {
            Some(slug) if self.slug_taken(&slug) => return Err(ClerkError::identifier_exists("slug")),
            Some(slug) => slug,
            None => {
                let mut slug = slug_from_name(&new.name);
                while self.slug_taken(&slug) {
                    let tail: String = rand::thread_rng().sample_iter(&Alphanumeric).take(6).map(char::from).collect();
                    slug = format!("{}-{}", slug_from_name(&new.name), tail.to_ascii_lowercase());
                }
                slug
            }
        };
        let now = now_ms();
        let organization = Organization {
            id: random_id("org_"),
            object: "organization",
            name: new.name,
            slug,
            image_url: "",
            has_image: false,
            max_allowed_memberships: new.max_allowed_memberships,
            admin_delete_enabled: true,
            public_metadata: new.public_metadata,
            private_metadata: new.private_metadata,
            created_by: new.created_by.clone(),
            members_count: None,
            created_at: now,
            updated_at: now,
        };
        self.organizations.insert(organization.id.clone(), organization.clone());
        if let Some(creator) = new.created_by {
            self.add_member(&organization.id, &creator, CREATOR_ROLE.to_owned())?;
        }
        Ok(organization)
    }

    /// The organization with this id or slug, with `members_count` when asked for.
    pub fn organization(&self, id_or_slug: &str, with_count: bool) -> Result<Organization, ClerkError> {
        let org = self
            .organizations
            .get(id_or_slug)
            .or_else(|| self.organizations.values().find(|org| org.slug == id_or_slug))
            .ok_or_else(|| ClerkError::not_found("organization"))?;
        let count = with_count.then(|| self.memberships.keys().filter(|(org_id, _)| *org_id == org.id).count());
        Ok(Organization { members_count: count, ..org.clone() })
    }

    fn view(&self, membership: &Membership) -> MembershipView {
        // Memberships are removed with their user, and organizations are never deleted.
        membership.view(&self.organizations[&membership.organization_id], &self.users[&membership.user_id])
    }

    pub fn add_member(&mut self, org_id: &str, user_id: &str, role: String) -> Result<MembershipView, ClerkError> {
        if !self.organizations.contains_key(org_id) {
            return Err(ClerkError::not_found("organization"));
        }
        if !self.users.contains_key(user_id) {
            return Err(ClerkError::not_found("user"));
        }
        let key = (org_id.to_owned(), user_id.to_owned());
        if self.memberships.contains_key(&key) {
            return Err(ClerkError::already_member());
        }
        let now = now_ms();
        let membership = Membership {
            id: random_id("orgmem_"),
            organization_id: key.0.clone(),
            user_id: key.1.clone(),
            role,
            created_at: now,
            updated_at: now,
            seq: self.next_seq(),
        };
        let view = self.view(&membership);
        self.memberships.insert(key, membership);
        Ok(view)
    }

    /// Removes the membership and answers it as it was.
    pub fn remove_member(&mut self, org_id: &str, user_id: &str) -> Result<MembershipView, ClerkError> {
        if !self.organizations.contains_key(org_id) {
            return Err(ClerkError::not_found("organization"));
        }
        let key = (org_id.to_owned(), user_id.to_owned());
        let membership = self.memberships.get(&key).ok_or_else(|| ClerkError::not_found("organization membership"))?;
        let view = self.view(membership);
        self.memberships.remove(&key);
        Ok(view)
    }

    fn page(&self, filter: impl Fn(&Membership) -> bool, page: Page) -> (Vec<MembershipView>, usize) {
        let mut matching: Vec<&Membership> = self.memberships.values().filter(|m| filter(m)).collect();
        matching.sort_by_key(|m| m.seq);
        if page.newest_first {
            matching.reverse();
        }
        let total = matching.len();
        let data = matching.into_iter().skip(page.offset).take(page.limit).map(|m| self.view(m)).collect();
        (data, total)
    }

    /// One page of the organization's memberships and their total count.
    pub fn organization_memberships(
        &self,
        org_id: &str,
        page: Page,
    ) -> Result<(Vec<MembershipView>, usize), ClerkError> {
        if !self.organizations.contains_key(org_id) {
            return Err(ClerkError::not_found("organization"));
        }
        Ok(self.page(|m| m.organization_id == org_id, page))
    }

    /// One page of the user's memberships and their total count.
    pub fn user_memberships(&self, user_id: &str, page: Page) -> Result<(Vec<MembershipView>, usize), ClerkError> {
        if !self.users.contains_key(user_id) {
            return Err(ClerkError::not_found("user"));
        }
        Ok(self.page(|m| m.user_id == user_id, page))
    }
}
