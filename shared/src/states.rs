//! The state machines of SPEC §4, written once for the server and the SPA.
//!
//! Entries: `waiting → selected → invited → active`, plus `declined`, `withdrawn`,
//! `revoked`; every state but `withdrawn` may still become `withdrawn`. Invitations:
//! `issued → redeemed | revoked | expired`. [`EntryState::may_become`]
//! is the transition table: the server's one writer of entry states refuses anything it
//! does not allow, and the SPA offers exactly what [`EntryActions`] derives from it.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum EntryState {
    Waiting,
    Selected,
    Invited,
    Active,
    Declined,
    Withdrawn,
    Revoked,
}

impl EntryState {
    /// Every state, in the order of the happy path and then its exits.
    pub const ALL: [EntryState; 7] = [
        EntryState::Waiting,
        EntryState::Selected,
        EntryState::Invited,
        EntryState::Active,
        EntryState::Declined,
        EntryState::Withdrawn,
        EntryState::Revoked,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            EntryState::Waiting => "waiting",
            EntryState::Selected => "selected",
            EntryState::Invited => "invited",
            EntryState::Active => "active",
            EntryState::Declined => "declined",
            EntryState::Withdrawn => "withdrawn",
            EntryState::Revoked => "revoked",
        }
    }

    /// The transition table. Conditions on other rows (no issued invitation for a
    /// decline, a free seat for an issue) are checked by the writer under its locks.
    pub fn may_become(self, to: EntryState) -> bool {
        use EntryState::*;
        matches!(
            (self, to),
            (Waiting, Selected)
                | (Waiting | Selected, Declined)
                | (Selected, Invited)
                | (Invited, Selected)
                | (Invited, Active)
                | (Active, Revoked)
                // Declined and revoked entries can still be withdrawn (by the applicant or
                // an owner), which frees their place in the queue.
                | (Waiting | Selected | Invited | Active | Declined | Revoked, Withdrawn)
        )
    }

    /// Whether the entry counts toward the queue cap (every entry but a withdrawn one).
    pub fn counts_in_queue(self) -> bool {
        self != EntryState::Withdrawn
    }
}

impl fmt::Display for EntryState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A state name that is not one of [`EntryState::ALL`] (or of the invitation states).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnknownState;

impl FromStr for EntryState {
    type Err = UnknownState;

    fn from_str(s: &str) -> Result<Self, UnknownState> {
        EntryState::ALL.into_iter().find(|state| state.as_str() == s).ok_or(UnknownState)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum InvitationState {
    Issued,
    Redeemed,
    Revoked,
    Expired,
}

impl InvitationState {
    pub const ALL: [InvitationState; 4] =
        [InvitationState::Issued, InvitationState::Redeemed, InvitationState::Revoked, InvitationState::Expired];

    pub fn as_str(self) -> &'static str {
        match self {
            InvitationState::Issued => "issued",
            InvitationState::Redeemed => "redeemed",
            InvitationState::Revoked => "revoked",
            InvitationState::Expired => "expired",
        }
    }

    /// Only an issued invitation changes state, and only once.
    pub fn may_become(self, to: InvitationState) -> bool {
        self == InvitationState::Issued && to != InvitationState::Issued
    }
}

impl fmt::Display for InvitationState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for InvitationState {
    type Err = UnknownState;

    fn from_str(s: &str) -> Result<Self, UnknownState> {
        InvitationState::ALL.into_iter().find(|state| state.as_str() == s).ok_or(UnknownState)
    }
}

/// What an owner may do with an entry, given its state and its one issued invitation
/// (if any): the server refuses everything else, so the SPA shows exactly these.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EntryActions {
    pub select: bool,
    pub decline: bool,
    pub issue: bool,
    pub revoke_invitation: bool,
    pub revoke_grant: bool,
    pub withdraw: bool,
}

/// The entry's issued invitation, as far as the owner's choices depend on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpenInvitation {
    None,
    Live,
    Expired,
}

impl EntryActions {
    pub fn of(state: EntryState, issued: OpenInvitation) -> EntryActions {
        use EntryState::*;
        EntryActions {
            select: state.may_become(Selected) && state == Waiting,
            decline: state.may_become(Declined) && issued == OpenInvitation::None,
            // A new invitation goes to a selected entry, or to an invited one whose
            // invitation has expired (it is marked expired first).
            issue: (state == Selected && issued == OpenInvitation::None)
                || (state == Invited && issued == OpenInvitation::Expired),
            revoke_invitation: state == Invited && issued != OpenInvitation::None,
            revoke_grant: state.may_become(Revoked),
            withdraw: state.may_become(Withdrawn),
        }
    }
}

/// Who acted, as an audit event records it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ActorKind {
    Owner,
    Recipient,
    Public,
    System,
}

impl ActorKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ActorKind::Owner => "owner",
            ActorKind::Recipient => "recipient",
            ActorKind::Public => "public",
            ActorKind::System => "system",
        }
    }
}

impl FromStr for ActorKind {
    type Err = UnknownState;

    fn from_str(s: &str) -> Result<Self, UnknownState> {
        [ActorKind::Owner, ActorKind::Recipient, ActorKind::Public, ActorKind::System]
            .into_iter()
            .find(|k| k.as_str() == s)
            .ok_or(UnknownState)
    }
}

/// The audit event types (SPEC §4, plus `redacted` for retention redaction).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum EventType {
    NoticePublished,
    Signup,
    Selected,
    Declined,
    InviteIssued,
    DeliveryRecorded,
    InviteRevoked,
    InviteExpired,
    Redeemed,
    GrantRevoked,
    Withdrawn,
    ContentUpdated,
    ProgramChanged,
    /// Retention redaction replaced the entry's email with a tombstone.
    Redacted,
    CohortCodeCreated,
    CohortCodeRevoked,
    /// The entry was erased on request (withdrawn if live, redacted, suppressed).
    Erased,
    /// A lottery draw froze its candidates and published its commitment.
    DrawOpened,
    /// A lottery draw revealed its seed (formats 1 and 2) or took its beacon round's
    /// randomness (format 3) and selected its winners.
    DrawRun,
    /// A lottery draw's tickets and exclusions were frozen (format 3).
    DrawClosed,
    /// A lottery draw was cancelled before it ran.
    DrawCancelled,
}

impl EventType {
    pub const ALL: [EventType; 21] = [
        EventType::NoticePublished,
        EventType::Signup,
        EventType::Selected,
        EventType::Declined,
        EventType::InviteIssued,
        EventType::DeliveryRecorded,
        EventType::InviteRevoked,
        EventType::InviteExpired,
        EventType::Redeemed,
        EventType::GrantRevoked,
        EventType::Withdrawn,
        EventType::ContentUpdated,
        EventType::ProgramChanged,
        EventType::Redacted,
        EventType::CohortCodeCreated,
        EventType::CohortCodeRevoked,
        EventType::Erased,
        EventType::DrawOpened,
        EventType::DrawRun,
        EventType::DrawClosed,
        EventType::DrawCancelled,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            EventType::NoticePublished => "notice_published",
            EventType::Signup => "signup",
            EventType::Selected => "selected",
            EventType::Declined => "declined",
            EventType::InviteIssued => "invite_issued",
            EventType::DeliveryRecorded => "delivery_recorded",
            EventType::InviteRevoked => "invite_revoked",
            EventType::InviteExpired => "invite_expired",
            EventType::Redeemed => "redeemed",
            EventType::GrantRevoked => "grant_revoked",
            EventType::Withdrawn => "withdrawn",
            EventType::ContentUpdated => "content_updated",
            EventType::ProgramChanged => "program_changed",
            EventType::Redacted => "redacted",
            EventType::CohortCodeCreated => "cohort_code_created",
            EventType::CohortCodeRevoked => "cohort_code_revoked",
            EventType::Erased => "erased",
            EventType::DrawOpened => "draw_opened",
            EventType::DrawRun => "draw_run",
            EventType::DrawClosed => "draw_closed",
            EventType::DrawCancelled => "draw_cancelled",
        }
    }
}

impl FromStr for EventType {
    type Err = UnknownState;

    fn from_str(s: &str) -> Result<Self, UnknownState> {
        EventType::ALL.into_iter().find(|t| t.as_str() == s).ok_or(UnknownState)
    }
}

#[cfg(test)]
mod tests {
    use super::EntryState::*;
    use super::*;

    #[test]
    fn withdrawn_is_final_and_declined_and_revoked_may_only_be_withdrawn() {
        for to in EntryState::ALL {
            assert!(!Withdrawn.may_become(to), "withdrawn -> {to}");
            for from in [Declined, Revoked] {
                assert_eq!(from.may_become(to), to == Withdrawn, "{from} -> {to}");
            }
        }
    }

    #[test]
    fn the_happy_path_and_its_exits() {
        assert!(Waiting.may_become(Selected));
        assert!(Selected.may_become(Invited));
        assert!(Invited.may_become(Active));
        assert!(Active.may_become(Revoked));
        assert!(!Waiting.may_become(Invited));
        assert!(!Invited.may_become(Declined));
        assert!(!Active.may_become(Declined));
        assert!(Active.may_become(Withdrawn));
    }

    #[test]
    fn names_round_trip_through_serde_and_from_str() {
        for s in EntryState::ALL {
            assert_eq!(serde_json::to_value(s).unwrap(), s.as_str());
            assert_eq!(s.as_str().parse::<EntryState>(), Ok(s));
        }
        for s in InvitationState::ALL {
            assert_eq!(serde_json::to_value(s).unwrap(), s.as_str());
            assert_eq!(s.as_str().parse::<InvitationState>(), Ok(s));
        }
        for t in EventType::ALL {
            assert_eq!(serde_json::to_value(t).unwrap(), t.as_str());
            assert_eq!(t.as_str().parse::<EventType>(), Ok(t));
        }
        assert_eq!("nope".parse::<EntryState>(), Err(UnknownState));
    }

    #[test]
    fn actions_follow_the_table() {
        let waiting = EntryActions::of(Waiting, OpenInvitation::None);
        assert!(waiting.select && waiting.decline && waiting.withdraw && !waiting.issue && !waiting.revoke_grant);
        let selected = EntryActions::of(Selected, OpenInvitation::None);
        assert!(!selected.select && selected.decline && selected.issue && selected.withdraw);
        let invited = EntryActions::of(Invited, OpenInvitation::Live);
        assert!(!invited.issue && !invited.decline && invited.revoke_invitation && invited.withdraw);
        let lapsed = EntryActions::of(Invited, OpenInvitation::Expired);
        assert!(lapsed.issue && lapsed.revoke_invitation);
        let active = EntryActions::of(Active, OpenInvitation::None);
        assert!(active.revoke_grant && active.withdraw && !active.issue);
        assert_eq!(EntryActions::of(Withdrawn, OpenInvitation::None), EntryActions::default());
        for over in [Declined, Revoked] {
            let only_withdraw = EntryActions { withdraw: true, ..EntryActions::default() };
            assert_eq!(EntryActions::of(over, OpenInvitation::None), only_withdraw, "{over}");
        }
    }
}
