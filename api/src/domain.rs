//! The state machines (SPEC §4), one place that answers "may this transition happen",
//! used by every writer. Entries: waiting → selected → invited → active, plus declined,
//! withdrawn, revoked. Invitations: issued → redeemed | revoked | expired.

use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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

    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "waiting" => EntryState::Waiting,
            "selected" => EntryState::Selected,
            "invited" => EntryState::Invited,
            "active" => EntryState::Active,
            "declined" => EntryState::Declined,
            "withdrawn" => EntryState::Withdrawn,
            "revoked" => EntryState::Revoked,
            _ => return None,
        })
    }

    /// Whether an entry may move from `self` to `to`. Conditions that depend on other
    /// rows (no issued invitation for a decline, a live seat for an issue) are checked
    /// by the writer under its locks.
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
                | (Waiting | Selected | Invited | Active, Withdrawn)
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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InvitationState {
    Issued,
    Redeemed,
    Revoked,
    Expired,
}

impl InvitationState {
    pub fn as_str(self) -> &'static str {
        match self {
            InvitationState::Issued => "issued",
            InvitationState::Redeemed => "redeemed",
            InvitationState::Revoked => "revoked",
            InvitationState::Expired => "expired",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "issued" => InvitationState::Issued,
            "redeemed" => InvitationState::Redeemed,
            "revoked" => InvitationState::Revoked,
            "expired" => InvitationState::Expired,
            _ => return None,
        })
    }

    /// Only an issued invitation changes state, and only once.
    pub fn may_become(self, to: InvitationState) -> bool {
        self == InvitationState::Issued && to != InvitationState::Issued
    }
}

#[cfg(test)]
mod tests {
    use super::EntryState::*;

    #[test]
    fn terminal_states_stay_terminal() {
        for from in [Declined, Withdrawn, Revoked] {
            for to in [Waiting, Selected, Invited, Active, Declined, Withdrawn, Revoked] {
                assert!(!from.may_become(to), "{from} -> {to}");
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
}
