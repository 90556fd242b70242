//! `/owner/programs/:id/audit`: the program's audit events as sentences, newest first
//! by default, narrowed by what they are about and who acted, page by page; and the
//! audit chain's checkpoint to download (issue 16): saved now, it proves later with
//! `vestibule verify --checkpoint FILE` that the history still begins with what was seen.

use leptos::prelude::*;
use leptos::task::spawn_local;
use shared::api::EventPage;
use shared::history::EventOrder;
use shared::trust::AuditCheckpoint;
use uuid::Uuid;

use crate::api::{self, ApiError};
use crate::components::download::save_text;
use crate::components::events::{EventList, HistoryFilters};
use crate::components::pager::{Cursors, Pager};
use crate::components::program_nav::ProgramNav;
use crate::components::set_title;
use crate::components::status::{loaded, Empty, ErrorNotice, RequireSignIn};
use crate::routes::owner::uuid_param;

/// The events path with the page's order, filters and cursor.
fn events_path(id: Uuid, order: EventOrder, group: &str, actor: &str, cursor: Option<String>) -> String {
    let mut path = format!("/api/owner/programs/{id}/events?order={}", order.as_str());
    for (key, value) in [("group", group), ("actor", actor)] {
        if !value.is_empty() {
            path.push_str(&format!("&{key}={value}"));
        }
    }
    if let Some(c) = cursor {
        path.push_str(&format!("&cursor={}", String::from(js_sys::encode_uri_component(&c))));
    }
    path
}

#[component]
pub fn Audit() -> impl IntoView {
    set_title("Audit log");
    let id = uuid_param("id");
    let cursors = Cursors::new();
    let (group, actor, order) =
        (RwSignal::new(String::new()), RwSignal::new(String::new()), RwSignal::new(EventOrder::Desc));
    let page = LocalResource::new(move || {
        let path = id.get().map(|id| events_path(id, order.get(), &group.get(), &actor.get(), cursors.current()));
        async move { api::get::<EventPage>(path.ok_or_else(ApiError::not_found)?).await }
    });
    // A changed filter or order starts again at its first page.
    let refilter = move |signal: RwSignal<String>, value: String| {
        cursors.reset();
        signal.set(value);
    };
    let newest = move || order.get() == EventOrder::Desc;
    view! {
        <RequireSignIn>
            {move || id.get().map(|id| view! { <ProgramNav id section="Audit log"/> })}
            <h1>"Audit log"</h1>
            <p class="muted">"Every change to this program and its entries. Events hold ids, states and reason codes only; owners are named as the sign-in service knows them."</p>
            <HistoryFilters prefix="audit" label="Filter the audit log" class="card filters"
                group=Callback::new(move |v| refilter(group, v)) actor=Callback::new(move |v| refilter(actor, v))>
                <div>
                    <label for="audit-order">"Order"</label>
                    <select id="audit-order" on:change=move |ev| {
                        cursors.reset();
                        order.set(if event_target_value(&ev) == "asc" { EventOrder::Asc } else { EventOrder::Desc });
                    }>
                        <option value="desc" selected=newest>"Newest first"</option>
                        <option value="asc" selected=move || !newest()>"Oldest first"</option>
                    </select>
                </div>
            </HistoryFilters>
            {loaded(page, move |r| match r {
                        Ok(pg) if pg.events.is_empty() => view! { <Empty><p>"No events match."</p></Empty> }.into_any(),
                        Ok(pg) => view! {
                            <section class="card" aria-label="Events">
                                <EventList events=pg.events program_id=id.get_untracked().unwrap_or_default()/>
                            </section>
                            <Pager cursors next=pg.next_cursor label="Audit log pages"/>
                        }.into_any(),
                        Err(err) => view! { <ErrorNotice err/> }.into_any(),
                })}
            {move || id.get().map(|id| view! { <Checkpoint id/> })}
        </RequireSignIn>
    }
}

/// Downloads the chain's checkpoint as the JSON file `vestibule verify --checkpoint` reads.
#[component]
fn Checkpoint(id: Uuid) -> impl IntoView {
    let failure = RwSignal::new(None::<ApiError>);
    let saved = RwSignal::new(false);
    let download = move |_| {
        failure.set(None);
        saved.set(false);
        spawn_local(async move {
            let checkpoint = api::get::<AuditCheckpoint>(format!("/api/owner/programs/{id}/audit/checkpoint")).await;
            match checkpoint.map(|c| serde_json::to_string_pretty(&c).unwrap_or_default()) {
                Ok(json) => match save_text(&format!("audit-checkpoint-{id}.json"), &json, "application/json") {
                    Ok(()) => saved.set(true),
                    Err(_) => failure.set(Some(ApiError::network())),
                },
                Err(e) => failure.set(Some(e)),
            }
        });
    };
    view! {
        <section class="card">
            <h2>"Tamper evidence"</h2>
            <p class="muted small">"The events form a hash chain. Keep a checkpoint of it: "<code>"vestibule verify --checkpoint FILE"</code>" proves later that no event up to it was edited, removed or re-ordered."</p>
            <button type="button" class="secondary" on:click=download>"Download checkpoint"</button>
            {move || saved.get().then(|| view! { <p class="small" role="status">"Checkpoint saved."</p> })}
            {move || failure.get().map(|err| view! { <ErrorNotice err/> })}
        </section>
    }
}
