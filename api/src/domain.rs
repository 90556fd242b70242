//! The domain's vocabulary on the server side. The state machines themselves live in
//! `shared::states` (one table for the server and the SPA); this module turns the table
//! into proofs: an [`EntryMove`] or [`InvitationMove`] exists only if the table allows
//! it, and the data layer's only writers of `entries.state` and `invitations.state`
//! take one. So every state change, whoever makes it, passes the same check.

pub use shared::states::{ActorKind, EntryState, EventType, InvitationState};

/// The table refused a transition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("invalid transition")]
pub struct InvalidTransition;

/// An entry transition the table allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EntryMove {
    from: EntryState,
    to: EntryState,
}

impl EntryMove {
    pub fn new(from: EntryState, to: EntryState) -> Result<Self, InvalidTransition> {
        if from.may_become(to) {
            Ok(EntryMove { from, to })
        } else {
            Err(InvalidTransition)
        }
    }

    pub fn from(self) -> EntryState {
        self.from
    }

    pub fn to(self) -> EntryState {
        self.to
    }
}

/// An invitation transition the table allows (only out of `issued`, once).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InvitationMove {
    to: InvitationState,
}

impl InvitationMove {
    pub fn new(from: InvitationState, to: InvitationState) -> Result<Self, InvalidTransition> {
        if from.may_become(to) {
            Ok(InvitationMove { to })
        } else {
            Err(InvalidTransition)
        }
    }

    pub fn to(self) -> InvitationState {
        self.to
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_exist_only_where_the_table_allows_them() {
        assert!(EntryMove::new(EntryState::Waiting, EntryState::Selected).is_ok());
        assert_eq!(EntryMove::new(EntryState::Declined, EntryState::Selected), Err(InvalidTransition));
        assert!(InvitationMove::new(InvitationState::Issued, InvitationState::Redeemed).is_ok());
        assert_eq!(InvitationMove::new(InvitationState::Redeemed, InvitationState::Revoked), Err(InvalidTransition));
    }
}
