//! How an owner narrows and orders a program's audit history
//! (`GET /api/owner/programs/{id}/events?order=&group=&actor=`): the groups the event
//! types fall into, who acted in words an owner uses, and the order. The server filters
//! by these and the SPA offers them, so both take them from here.

use crate::states::{ActorKind, EventType};
use serde::{Deserialize, Serialize};

/// The order of a history page: by event id, oldest first (`asc`, the default) or
/// newest first (`desc`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum EventOrder {
    #[default]
    Asc,
    Desc,
}

impl EventOrder {
    pub fn as_str(self) -> &'static str {
        match self {
            EventOrder::Asc => "asc",
            EventOrder::Desc => "desc",
        }
    }
}

/// What an event is about. Every [`EventType`] is in exactly one group.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum EventGroup {
    /// Joining, leaving, retention redaction and erasure.
    Signups,
    /// Selections, declines and lottery draws.
    Decisions,
    /// Invitation codes and cohort codes: issued, sent, revoked, expired.
    Invitations,
    /// Early access: codes redeemed, grants revoked.
    Access,
    /// The program's notice, content and settings.
    Settings,
}

impl EventGroup {
    pub const ALL: [EventGroup; 5] =
        [EventGroup::Signups, EventGroup::Decisions, EventGroup::Invitations, EventGroup::Access, EventGroup::Settings];

    pub fn as_str(self) -> &'static str {
        match self {
            EventGroup::Signups => "signups",
            EventGroup::Decisions => "decisions",
            EventGroup::Invitations => "invitations",
            EventGroup::Access => "access",
            EventGroup::Settings => "settings",
        }
    }

    /// The group's name as a filter shows it.
    pub fn label(self) -> &'static str {
        match self {
            EventGroup::Signups => "Sign-ups",
            EventGroup::Decisions => "Decisions",
            EventGroup::Invitations => "Invitations",
            EventGroup::Access => "Access",
            EventGroup::Settings => "Settings",
        }
    }

    pub fn of(kind: EventType) -> EventGroup {
        use EventType::*;
        match kind {
            Signup | Withdrawn | Redacted | Erased => EventGroup::Signups,
            Selected | Declined | DrawOpened | DrawRun | DrawClosed | DrawCancelled => EventGroup::Decisions,
            InviteIssued | DeliveryRecorded | InviteRevoked | InviteExpired | CohortCodeCreated | CohortCodeRevoked => {
                EventGroup::Invitations
            }
            Redeemed | GrantRevoked => EventGroup::Access,
            NoticePublished | ContentUpdated | ProgramChanged => EventGroup::Settings,
        }
    }

    /// The event types of the group.
    pub fn types(self) -> Vec<EventType> {
        EventType::ALL.into_iter().filter(|t| EventGroup::of(*t) == self).collect()
    }
}

/// Who acted, as an owner reads it: an owner, the applicant (signed in as the recipient,
/// or through the public form), or the system (expiry, retention, the server API).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum EventActor {
    Owner,
    Applicant,
    System,
}

impl EventActor {
    pub const ALL: [EventActor; 3] = [EventActor::Owner, EventActor::Applicant, EventActor::System];

    pub fn as_str(self) -> &'static str {
        match self {
            EventActor::Owner => "owner",
            EventActor::Applicant => "applicant",
            EventActor::System => "system",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            EventActor::Owner => "Owners",
            EventActor::Applicant => "Applicants",
            EventActor::System => "Automatic",
        }
    }

    pub fn of(kind: ActorKind) -> EventActor {
        match kind {
            ActorKind::Owner => EventActor::Owner,
            ActorKind::Recipient | ActorKind::Public => EventActor::Applicant,
            ActorKind::System => EventActor::System,
        }
    }

    /// The stored actor kinds this covers.
    pub fn kinds(self) -> Vec<ActorKind> {
        [ActorKind::Owner, ActorKind::Recipient, ActorKind::Public, ActorKind::System]
            .into_iter()
            .filter(|k| EventActor::of(*k) == self)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_event_type_is_in_one_group() {
        let mut all: Vec<EventType> = EventGroup::ALL.into_iter().flat_map(EventGroup::types).collect();
        assert_eq!(all.len(), EventType::ALL.len());
        all.dedup();
        assert_eq!(all.len(), EventType::ALL.len());
    }

    #[test]
    fn names_round_trip_through_serde() {
        for g in EventGroup::ALL {
            assert_eq!(serde_json::to_value(g).unwrap(), g.as_str());
        }
        for a in EventActor::ALL {
            assert_eq!(serde_json::to_value(a).unwrap(), a.as_str());
        }
        assert_eq!(serde_json::to_value(EventOrder::Desc).unwrap(), "desc");
        assert_eq!(EventActor::Applicant.kinds(), vec![ActorKind::Recipient, ActorKind::Public]);
    }
}
