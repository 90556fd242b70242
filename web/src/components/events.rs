//! Audit events as a list: order, time, type, actor and the controlled details (ids, states
//! and reason codes only — events never hold personal data).

use leptos::prelude::*;
use leptos_router::components::A;
use shared::api::AuditEvent;
use uuid::Uuid;

use crate::components::text::{label, time};

#[component]
pub fn EventList(events: Vec<AuditEvent>, #[prop(optional)] program_id: Option<Uuid>) -> impl IntoView {
    let items = events
        .into_iter()
        .map(|e| {
            let entry = e.entry_id.zip(program_id).map(|(eid, pid)| {
                let name = format!("Entry of event #{}", e.id);
                view! { <A href=format!("/owner/programs/{pid}/entries/{eid}") attr:aria-label=name>"entry"</A> }
            });
            view! {
                <li>
                    <span class="event-id">{format!("#{}", e.id)}</span>
                    <span class="event-main">
                        <strong>{label(e.kind.as_str())}</strong>
                        {format!(" by {} · {}", e.actor_kind.as_str(), time(&e.at))}
                        {entry.map(|link| view! { " · " {link} })}
                    </span>
                    <span class="event-details muted small">{details(&e.details)}</span>
                </li>
            }
        })
        .collect_view();
    view! { <ol class="events">{items}</ol> }
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
