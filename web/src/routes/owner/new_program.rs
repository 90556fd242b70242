//! Creating a program (closed, without notice or content) from the dashboard. The slug is
//! checked with the shared grammar as it is typed.

use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::hooks::use_navigate;
use serde::Deserialize;
use shared::api::CreateProgramRequest;
use shared::Slug;
use uuid::Uuid;

use crate::api::{self, ApiError};
use crate::components::status::ErrorNotice;

/// The part of the 201 answer this form needs.
#[derive(Deserialize)]
struct Created {
    id: Uuid,
}

#[component]
pub fn NewProgram(workspace_id: Uuid) -> impl IntoView {
    let slug = RwSignal::new(String::new());
    let purpose = RwSignal::new(String::new());
    let caps = [
        ("Queue cap", "queue", 1000),
        ("Sign-ups per hour", "hourly", 100),
        ("Seats", "seats", 50),
        ("Longest invitation, days", "days", 14),
    ]
    .map(|(label, key, default)| (label, format!("new-{key}-{workspace_id}"), RwSignal::new(default.to_string())));
    let pending = RwSignal::new(false);
    let failure = RwSignal::new(None::<ApiError>);
    let slug_ok = move || slug.with(|s| Slug::parse(s).is_ok());
    let navigate = use_navigate();
    let numbers = caps.clone().map(|(_, _, v)| v);
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let [q, h, s, d] = numbers.map(|v| v.get_untracked().trim().parse::<i32>().ok());
        let (Some(queue_cap), Some(hourly_cap), Some(seat_cap), Some(max_invite_days)) = (q, h, s, d) else {
            failure.set(Some(ApiError {
                status: 400,
                code: "bounds".into(),
                message: "Caps and days must be whole numbers.".into(),
            }));
            return;
        };
        let body = CreateProgramRequest {
            workspace_id,
            slug: slug.get_untracked(),
            purpose: purpose.get_untracked(),
            queue_cap,
            hourly_cap,
            seat_cap,
            max_invite_days,
        };
        pending.set(true);
        failure.set(None);
        let navigate = navigate.clone();
        spawn_local(async move {
            let result = api::post::<_, Created>("/api/owner/programs", &body).await;
            pending.set(false);
            match result {
                Ok(p) => navigate(&format!("/owner/programs/{}", p.id), Default::default()),
                Err(e) if e.status == 409 => {
                    failure.set(Some(ApiError { message: "That slug is already taken. Choose another.".into(), ..e }))
                }
                Err(e) => failure.set(Some(e)),
            }
        });
    };
    let slug_id = format!("new-slug-{workspace_id}");
    let purpose_id = format!("new-purpose-{workspace_id}");
    view! {
        <details class="card new-program">
            <summary>"Create a program"</summary>
            <form class="form" method="post" novalidate on:submit=submit>
                <label for=slug_id.clone()>"Slug (the public address: /waitlist/slug)"</label>
                <input id=slug_id type="text" autocomplete="off" spellcheck="false" maxlength="60"
                    prop:value=move || slug.get() on:input=move |ev| slug.set(event_target_value(&ev))/>
                <p class="field-error" aria-live="polite">
                    {move || (!slug.with(String::is_empty) && !slug_ok()).then_some("3 to 60 characters: lowercase letters, digits and -.")}
                </p>
                <label for=purpose_id.clone()>"Purpose (shown in every notice; a new purpose needs a new program)"</label>
                <textarea id=purpose_id rows="3" prop:value=move || purpose.get() on:input=move |ev| purpose.set(event_target_value(&ev))></textarea>
                <div class="fields">
                    {caps.into_iter().map(|(label, id, value)| view! {
                        <div>
                            <label for=id.clone()>{label}</label>
                            <input id=id type="number" min="1" inputmode="numeric" prop:value=move || value.get() on:input=move |ev| value.set(event_target_value(&ev))/>
                        </div>
                    }).collect_view()}
                </div>
                <button type="submit" disabled=move || pending.get() || !slug_ok() || purpose.with(|p| p.trim().is_empty())>
                    {move || if pending.get() { "Creating…" } else { "Create program" }}
                </button>
                {move || failure.get().map(|err| view! { <ErrorNotice err/> })}
            </form>
        </details>
    }
}
