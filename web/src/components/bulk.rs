//! Bulk actions on the queue rows an owner ticked: select or decline with one reason, or
//! issue invitations to all of them and download the codes as CSV — the only copy of
//! those codes. One bulk issue keeps one request key across retries.

use std::collections::BTreeSet;

use leptos::prelude::*;
use leptos::task::spawn_local;
use serde::Serialize;
use shared::api::{DeclineRequest, SelectRequest, DECLINE_REASONS, SELECT_REASONS};
use uuid::Uuid;

use crate::api::{self, ApiError};
use crate::components::download::save_text;
use crate::components::reason::ReasonForm;
use crate::components::status::{ErrorNotice, Success};
use crate::components::text::days_from_now;

/// `POST /api/owner/programs/{id}/invitations/bulk`, answered with `text/csv`. Not yet in
/// `shared::api` (see the SPA's hand-over notes).
#[derive(Clone, Serialize)]
#[serde(rename_all = "camelCase")]
struct BulkIssueRequest {
    request_key: Uuid,
    entry_ids: Vec<Uuid>,
    expires_at: String,
}

#[component]
pub fn BulkActions(
    program_id: Uuid,
    slug: String,
    max_days: i32,
    selected: RwSignal<BTreeSet<Uuid>>,
    done: Callback<()>,
) -> impl IntoView {
    let pending = RwSignal::new(false);
    let report = RwSignal::new(None::<Result<String, ApiError>>);
    let count = move || selected.with(BTreeSet::len);
    let each = move |action: &'static str, body: serde_json::Value| {
        let ids: Vec<Uuid> = selected.get_untracked().into_iter().collect();
        pending.set(true);
        report.set(None);
        spawn_local(async move {
            let (mut ok, mut refused) = (0, 0);
            for entry in ids {
                let path = format!("/api/owner/programs/{program_id}/entries/{entry}/{action}");
                match api::post::<_, serde_json::Value>(path, &body).await {
                    Ok(_) => ok += 1,
                    Err(_) => refused += 1,
                }
            }
            pending.set(false);
            report.set(Some(Ok(format!("{ok} changed, {refused} left as they were (their state did not allow it)."))));
            done.run(());
        });
    };
    let select = Callback::new(move |reason_code| {
        each("select", serde_json::to_value(SelectRequest { reason_code }).unwrap_or_default())
    });
    let decline = Callback::new(move |reason_code| {
        each("decline", serde_json::to_value(DeclineRequest { reason_code }).unwrap_or_default())
    });

    let days = RwSignal::new(max_days.clamp(1, 7).to_string());
    let attempt = StoredValue::new(None::<BulkIssueRequest>);
    let issue = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let Some(d) =
            days.get_untracked().trim().parse::<u32>().ok().filter(|d| (1..=max_days.max(1) as u32).contains(d))
        else {
            report.set(Some(Err(ApiError {
                status: 400,
                code: "bounds".into(),
                message: format!("Choose 1 to {max_days} days."),
            })));
            return;
        };
        let ids: Vec<Uuid> = selected.get_untracked().into_iter().collect();
        let body = match attempt.get_value() {
            Some(a) if a.entry_ids == ids => a,
            _ => BulkIssueRequest { request_key: Uuid::new_v4(), entry_ids: ids, expires_at: days_from_now(d) },
        };
        attempt.set_value(Some(body.clone()));
        let name = format!("{slug}-invitations.csv");
        pending.set(true);
        report.set(None);
        spawn_local(async move {
            let result = api::post_text(format!("/api/owner/programs/{program_id}/invitations/bulk"), &body).await;
            pending.set(false);
            if !matches!(&result, Err(e) if e.is_retryable()) {
                attempt.set_value(None);
            }
            report.set(Some(result.and_then(|csv| {
                save_text(&name, &csv, "text/csv").map_err(|_| ApiError::network())?;
                Ok("Invitations issued. The downloaded file holds the codes; it is the only copy. Record each delivery on the entry's page once sent.".to_owned())
            })));
            done.run(());
        });
    };
    view! {
        <Show when=move || !selected.with(BTreeSet::is_empty)>
            <section class="card bulk" aria-label="Bulk actions">
                <h2>{move || format!("{} selected", count())}</h2>
                <ReasonForm id="bulk-select" legend="Select with reason" options=SELECT_REASONS button="Select" pending on_submit=select/>
                <ReasonForm id="bulk-decline" legend="Decline with reason" options=DECLINE_REASONS button="Decline" pending on_submit=decline class="danger"/>
                <form class="reason-form" method="post" on:submit=issue.clone()>
                    <label for="bulk-days">{format!("Invitations valid for (days, 1–{max_days})")}</label>
                    <div class="row">
                        <input id="bulk-days" type="number" min="1" max=max_days inputmode="numeric" prop:value=move || days.get() on:input=move |ev| days.set(event_target_value(&ev))/>
                        <button type="submit" disabled=move || pending.get()>"Issue and download codes"</button>
                    </div>
                    <p class="muted small">"Only selected entries get an invitation. The codes are in the downloaded file and are not shown again."</p>
                </form>
            </section>
        </Show>
        {move || report.get().map(|r| match r {
            Ok(text) => view! { <Success><p>{text}</p></Success> }.into_any(),
            Err(err) => view! { <ErrorNotice err/> }.into_any(),
        })}
    }
}
