//! Audit events in plain words: one sentence per event ("Selected by an owner — meets
//! policy"), its time and, behind a "Details" toggle, the event's number and the
//! controlled details (ids, states and reason codes only — events never hold personal
//! data). Event kinds this build does not know yet read as their label, never as nothing.

use leptos::prelude::*;
use leptos_router::components::A;
use shared::api::AuditEvent;
use shared::ActorKind;
use uuid::Uuid;

use crate::components::text::{label, time};

#[component]
pub fn EventList(events: Vec<AuditEvent>, #[prop(optional)] program_id: Option<Uuid>) -> impl IntoView {
    let items = events
        .into_iter()
        .map(|e| {
            let entry = e.entry_id.zip(program_id).map(|(eid, pid)| {
                let name = format!("Entry of event {}", e.id);
                view! { " · " <A href=format!("/owner/programs/{pid}/entries/{eid}") attr:aria-label=name>"entry"</A> }
            });
            let details = details(&e.details);
            view! {
                <li>
                    <p class="event-sentence">{sentence(&e)}</p>
                    <p class="muted small">{time(&e.at)}{entry}</p>
                    <details class="event-details small">
                        <summary>"Details"</summary>
                        <p class="muted">{format!("Event {} · {}", e.id, e.kind.as_str())}{(!details.is_empty()).then(|| format!(" · {details}"))}</p>
                    </details>
                </li>
            }
        })
        .collect_view();
    view! { <ol class="events">{items}</ol> }
}

/// "Selected by an owner — meets policy".
fn sentence(e: &AuditEvent) -> String {
    let by = match e.actor_kind {
        ActorKind::Owner => " by an owner",
        ActorKind::Recipient => " by the applicant",
        ActorKind::System => " automatically",
        _ => "",
    };
    let why = ["reasonCode", "basis"]
        .iter()
        .find_map(|k| e.details.get(*k).and_then(|v| v.as_str()))
        .map(|r| format!(" — {}", label(r).to_lowercase()))
        .unwrap_or_default();
    let what = match e.kind.as_str() {
        "notice_published" => "Notice published",
        "signup" => return "Joined the waitlist".to_owned(),
        "selected" => "Selected",
        "declined" => "Declined",
        "invite_issued" => "Invitation issued",
        "delivery_recorded" => "Invitation marked sent",
        "invite_revoked" => "Invitation revoked",
        "invite_expired" => return "Invitation expired unused".to_owned(),
        "redeemed" => return "Code redeemed: early access granted".to_owned(),
        "grant_revoked" => "Early access revoked",
        "withdrawn" => "Left the waitlist",
        "content_updated" => "Early-access content saved",
        "program_changed" => "Program settings changed",
        "redacted" => return "Address removed under the retention rule".to_owned(),
        other => return format!("{}{by}{why}", label(other)),
    };
    format!("{what}{by}{why}")
}

/// `{"reasonCode":"meets_policy","from":"waiting"}` → `reasonCode: meets_policy · from: waiting`.
fn details(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::Object(map) => map
            .iter()
            .map(|(k, v)| match v {
                serde_json::Value::String(s) => format!("{k}: {}", time(s)),
                other => format!("{k}: {other}"),
            })
            .collect::<Vec<_>>()
            .join(" · "),
        serde_json::Value::Null => String::new(),
        other => other.to_string(),
    }
}
