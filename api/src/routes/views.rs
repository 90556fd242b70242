//! Rows and use-case results as the wire types of `shared::api`: the one place where the
//! server's data becomes the contract's bodies. Times are RFC 3339 with microseconds.

use crate::time::rfc3339;
use crate::usecases::decisions::GrantRow;
use crate::usecases::history::EventRow;
use crate::usecases::invitations::InvitationRow;
use crate::usecases::programs::{ContentRow, NoticeRow, ProgramView};
use crate::usecases::queue::EntryRow;
use crate::usecases::recipient::OwnEntry;
use shared::api;
use std::collections::HashMap;
use uuid::Uuid;

pub fn notice(n: &NoticeRow) -> api::Notice {
    api::Notice {
        version: n.version,
        purpose: n.purpose.clone(),
        contact_text: n.contact_text.clone(),
        retention_text: n.retention_text.clone(),
        published_at: rfc3339(n.published_at),
        questions: n.questions.clone(),
    }
}

/// A public program as its signup form shows it (the API's answer and the data the
/// server writes into the form's page, `routes::form_page`).
pub fn public_program(slug: &shared::Slug, p: crate::usecases::public::PublicRow) -> api::PublicProgram {
    api::PublicProgram {
        slug: slug.to_string(),
        title: p.title,
        description: p.description,
        signup_open: p.signup_open,
        notice: notice(&p.notice),
        proof_of_work: p.pow_level,
        embed_origins: p.embed_origins,
        join_with: p.join_with,
    }
}

pub fn program((p, summary): &ProgramView) -> api::Program {
    api::Program {
        id: p.id,
        workspace_id: p.workspace_id,
        slug: p.slug.clone(),
        purpose: p.purpose.clone(),
        title: p.title.clone(),
        description: p.description.clone(),
        proof_of_work: p.pow_level,
        embed_origins: p.embed_origins.clone(),
        join_with: p.join_with,
        signup_open: p.signup_open,
        access_enabled: p.access_enabled,
        queue_cap: p.queue_cap,
        hourly_cap: p.hourly_cap,
        seat_cap: p.seat_cap,
        max_invite_days: p.max_invite_days,
        revision: p.revision,
        counts: api::ProgramCounts {
            queue: summary.queue,
            hour: summary.hour,
            seats: summary.seats,
            entries: summary.entries,
            waiting: summary.waiting,
            selected: summary.selected,
            active: summary.active,
            not_sent: summary.not_sent,
            expiring_soon: summary.expiring_soon,
        },
        notice: summary.notice.as_ref().map(notice),
        has_content: summary.has_content,
        created_at: rfc3339(p.created_at),
        clerk: summary.clerk.as_ref().map(|c| shared::clerk_sync::ClerkSyncSetting {
            public_metadata: c.public_metadata,
            organization_id: c.organization.as_ref().map(|(org, _)| org.clone()),
            role: c.organization.as_ref().map(|(_, role)| role.clone()),
        }),
    }
}

pub fn invitation(i: &InvitationRow) -> api::Invitation {
    let delivery = match (i.delivery_recorded_at, &i.delivery_channel) {
        (Some(at), Some(channel)) => Some(api::DeliveryRecord {
            recorded_at: rfc3339(at),
            channel: channel.clone(),
            reference: i.delivery_reference.clone(),
        }),
        _ => None,
    };
    api::Invitation {
        id: i.id,
        state: i.state,
        issued_at: rfc3339(i.issued_at),
        expires_at: rfc3339(i.expires_at),
        delivery,
    }
}

pub fn grant(g: &GrantRow) -> api::Grant {
    api::Grant { id: g.id, active: g.active, granted_at: rfc3339(g.granted_at), revoked_at: g.revoked_at.map(rfc3339) }
}

/// An event as the owner reads it; `names` are the acting owners' names by staff id.
pub fn event(e: EventRow, names: &HashMap<Uuid, String>) -> api::AuditEvent {
    api::AuditEvent {
        id: e.id,
        kind: e.event_type,
        entry_id: e.entry_id,
        actor_kind: e.actor_kind,
        actor_name: e.actor_staff_id.and_then(|id| names.get(&id).cloned()),
        at: rfc3339(e.at),
        details: e.details,
    }
}

pub fn entry_summary(e: EntryRow) -> api::EntrySummary {
    let flags = e.flags();
    api::EntrySummary {
        id: e.id,
        email: e.email,
        state: e.state,
        created_at: rfc3339(e.created_at),
        notice_version: e.notice_version,
        invitation: e.invitation.map(|i| api::QueuedInvitation {
            expires_at: rfc3339(i.expires_at),
            sent: i.sent,
            issued_at: rfc3339(i.issued_at),
        }),
        flags,
        duplicate_of: e.duplicate_of,
        source: e.source_ref,
        answers: e.answers,
        verified_at_join: e.verified_at_join.map(rfc3339),
    }
}

pub fn content(c: ContentRow) -> api::Content {
    api::Content { revision: c.revision, body: c.body, updated_at: rfc3339(c.updated_at) }
}

pub fn own_entry(e: OwnEntry) -> api::OwnEntry {
    api::OwnEntry { program_slug: e.slug, state: e.state, joined_at: rfc3339(e.joined_at), position: e.position }
}

pub fn own_status(e: OwnEntry) -> api::OwnWaitlistStatus {
    api::OwnWaitlistStatus {
        state: e.state,
        joined_at: rfc3339(e.joined_at),
        notice_version: e.notice_version,
        invitation: e
            .invitation
            .map(|(state, expires_at)| api::InvitationStatus { state, expires_at: rfc3339(expires_at) }),
        position: e.position,
    }
}
