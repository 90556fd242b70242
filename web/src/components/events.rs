//! Audit events in plain words: one sentence per event ("Selected by Jo — meets policy",
//! the owner named as the sign-in service knows them, else "an owner"; an applicant is
//! never named), its time and, behind a "Details" toggle, the event's number and the
//! controlled details (ids, states and reason codes only — events never hold personal
//! data). Event kinds this build does not know yet read as their label, never as nothing.

use leptos::prelude::*;
use leptos_router::components::A;
use shared::api::AuditEvent;
use shared::history::{EventActor, EventGroup};
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

/// An entry's whole history (already in the page), newest first, with the audit log's
/// two filters applied in the page: what the events are about, and who acted.
#[component]
pub fn FilteredEvents(events: Vec<AuditEvent>) -> impl IntoView {
    let mut events = events;
    events.sort_by_key(|e| std::cmp::Reverse(e.id));
    let (group, actor) = (RwSignal::new(String::new()), RwSignal::new(String::new()));
    let shown = move || {
        let (g, a) = (group.get(), actor.get());
        let keep = |e: &AuditEvent| {
            (g.is_empty() || EventGroup::of(e.kind).as_str() == g)
                && (a.is_empty() || EventActor::of(e.actor_kind).as_str() == a)
        };
        let list: Vec<AuditEvent> = events.iter().filter(|e| keep(e)).cloned().collect();
        if list.is_empty() {
            view! { <p class="muted">"No events match."</p> }.into_any()
        } else {
            view! { <EventList events=list/> }.into_any()
        }
    };
    view! {
        <HistoryFilters prefix="history" label="Filter this history" class="filters"
            group=Callback::new(move |v| group.set(v)) actor=Callback::new(move |v| actor.set(v))/>
        {shown}
    }
}

/// The history's two filters, as selects with the ids `{prefix}-group` ("About": a group
/// of event types) and `{prefix}-actor` ("Who": a kind of actor); each change hands over
/// the chosen value, `""` for any. `children` are further controls in the same group.
#[component]
pub fn HistoryFilters(
    prefix: &'static str,
    label: &'static str,
    class: &'static str,
    group: Callback<String>,
    actor: Callback<String>,
    #[prop(optional)] children: Option<Children>,
) -> impl IntoView {
    let groups = EventGroup::ALL.map(|g| view! { <option value=g.as_str()>{g.label()}</option> }).collect_view();
    let actors = EventActor::ALL.map(|a| view! { <option value=a.as_str()>{a.label()}</option> }).collect_view();
    let (group_id, actor_id) = (format!("{prefix}-group"), format!("{prefix}-actor"));
    view! {
        <div class=class role="group" aria-label=label>
            <div>
                <label for=group_id.clone()>"About"</label>
                <select id=group_id on:change=move |ev| group.run(event_target_value(&ev))>
                    <option value="">"Everything"</option>
                    {groups}
                </select>
            </div>
            <div>
                <label for=actor_id.clone()>"Who"</label>
                <select id=actor_id on:change=move |ev| actor.run(event_target_value(&ev))>
                    <option value="">"Anyone"</option>
                    {actors}
                </select>
            </div>
            {children.map(|c| c())}
        </div>
    }
}

/// "Selected by Jo — meets policy"; a number in the details says what it counts
/// ("Early-access content saved as version 4"), never a bare "revision 4".
fn sentence(e: &AuditEvent) -> String {
    let by = match (e.actor_kind, &e.actor_name) {
        (ActorKind::Owner, Some(name)) => format!(" by {name}"),
        (ActorKind::Owner, None) => " by an owner".to_owned(),
        (ActorKind::Recipient, _) => " by the applicant".to_owned(),
        (ActorKind::System, _) => " automatically".to_owned(),
        _ => String::new(),
    };
    let why = ["reasonCode", "basis"]
        .iter()
        .find_map(|k| e.details.get(*k).and_then(|v| v.as_str()))
        .map(|r| format!(" — {}", label(r).to_lowercase()))
        .unwrap_or_default();
    let number = |key: &str| e.details.get(key).and_then(serde_json::Value::as_i64);
    let what = match e.kind.as_str() {
        "notice_published" => match number("version") {
            Some(v) => format!("Notice version {v} published"),
            None => "Notice published".to_owned(),
        },
        "signup" => return "Joined the waitlist".to_owned(),
        "selected" => "Selected".to_owned(),
        "declined" => "Declined".to_owned(),
        "invite_issued" => "Invitation issued".to_owned(),
        "delivery_recorded" => "Invitation marked sent".to_owned(),
        "invite_revoked" => "Invitation revoked".to_owned(),
        "invite_expired" => return "Invitation expired unused".to_owned(),
        "redeemed" => return "Code redeemed: early access granted".to_owned(),
        "grant_revoked" => "Early access revoked".to_owned(),
        "withdrawn" => "Left the waitlist".to_owned(),
        "content_updated" => match number("revision") {
            Some(1) => "Early-access content written (first version)".to_owned(),
            Some(v) => format!("Early-access content saved as version {v}"),
            None => "Early-access content saved".to_owned(),
        },
        "program_changed" if e.details.get("created") == Some(&serde_json::Value::Bool(true)) => {
            "Program created".to_owned()
        }
        "program_changed" => settings_changes(&e.details),
        "redacted" => return "Address removed under the retention rule".to_owned(),
        other => label(other),
    };
    format!("{what}{by}{why}")
}

/// What a settings change did, in words: "Sign-ups opened, seats set to 20".
fn settings_changes(details: &serde_json::Value) -> String {
    let flag = |k: &str| details.get(k).and_then(serde_json::Value::as_bool);
    let number = |k: &str| details.get(k).and_then(serde_json::Value::as_i64);
    let mut parts: Vec<String> = Vec::new();
    if let Some(open) = flag("signupOpen") {
        parts.push(if open { "sign-ups opened" } else { "sign-ups closed" }.to_owned());
    }
    if let Some(on) = flag("accessEnabled") {
        parts.push(if on { "early access switched on" } else { "early access switched off" }.to_owned());
    }
    for (key, what) in [("queueCap", "queue cap"), ("hourlyCap", "sign-ups per hour"), ("seatCap", "seats")] {
        if let Some(n) = number(key) {
            parts.push(format!("{what} set to {n}"));
        }
    }
    for (key, what) in [("titleChanged", "title changed"), ("descriptionChanged", "description changed")] {
        if flag(key) == Some(true) {
            parts.push(what.to_owned());
        }
    }
    if let Some(level) = details.get("proofOfWork").and_then(serde_json::Value::as_str) {
        parts.push(format!("proof of work set to {}", label(level).to_lowercase()));
    }
    if let Some(n) = number("embedOrigins") {
        parts.push(format!("embedding sites changed ({n} allowed)"));
    }
    if details.get("clerkPublicMetadata").is_some() || details.get("clerkOrganization").is_some() {
        parts.push("sign-in service sync changed".to_owned());
    }
    let mut text = if parts.is_empty() { "program settings changed".to_owned() } else { parts.join(", ") };
    if let Some(first) = text.get(..1) {
        let upper = first.to_ascii_uppercase();
        text.replace_range(..1, &upper);
    }
    text
}

/// `{"reasonCode":"meets_policy","revision":4}` → `reason: meets_policy · version: 4`
/// (the program's or the content's version: the count the concurrency check compares).
fn details(value: &serde_json::Value) -> String {
    let key = |k: &str| match k {
        "reasonCode" => "reason".to_owned(),
        "revision" => "version".to_owned(),
        other => other.to_owned(),
    };
    match value {
        serde_json::Value::Object(map) => map
            .iter()
            .map(|(k, v)| match v {
                serde_json::Value::String(s) => format!("{}: {}", key(k), time(s)),
                other => format!("{}: {other}", key(k)),
            })
            .collect::<Vec<_>>()
            .join(" · "),
        serde_json::Value::Null => String::new(),
        other => other.to_string(),
    }
}
