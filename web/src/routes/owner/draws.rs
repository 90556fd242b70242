//! `/owner/programs/:id/draws`: verifiable lottery draws (issue 16). Opening a draw freezes
//! the waiting entries — optionally only those from one source and/or with a flag filter,
//! the queue's vocabulary plus "no flags" — as tickets and publishes the commitment (the
//! seed's hash and the tickets' hash, which covers the filter); running it is a separate,
//! later action that reveals the seed and selects the winners. Each draw shows its filter
//! in words, and its record downloads as JSON for `vestibule verify-draw`.

use leptos::prelude::*;
use leptos::task::spawn_local;
use shared::trust::{DrawRecord, DrawSummary, FlagFilter, OpenDrawRequest, DRAW_MAX_WINNERS};
use shared::{ErrorCode, SourceRef};
use uuid::Uuid;

use crate::api::{self, ApiError};
use crate::components::confirm::ConfirmButton;
use crate::components::download::save_text;
use crate::components::program_nav::ProgramNav;
use crate::components::status::{loaded, Empty, ErrorNotice, RequireSignIn, Success};
use crate::components::text::{flag_label, time};
use crate::routes::owner::uuid_param;

#[component]
pub fn DrawsPage() -> impl IntoView {
    let id = uuid_param("id");
    view! {
        <RequireSignIn>
            {move || id.get().map(|id| view! { <ProgramNav id section="Lottery"/> <Draws id/> })}
        </RequireSignIn>
    }
}

#[component]
fn Draws(id: Uuid) -> impl IntoView {
    let draws = LocalResource::new(move || api::get::<Vec<DrawSummary>>(format!("/api/owner/programs/{id}/draws")));
    let reload = Callback::new(move |()| draws.refetch());
    view! {
        <h1>"Lottery"</h1>
        <p class="lead">"When more people wait than there are seats, a draw picks the winners fairly and provably: opening it fixes who takes part and commits to a secret seed; running it later reveals the seed, and anyone can recompute the result from the downloaded record with "<code>"vestibule verify-draw"</code>"."</p>
        <OpenForm id reload/>
        <section class="card">
            <h2>"Draws"</h2>
            {loaded(draws, move |r| match r {
                Ok(list) if list.is_empty() => view! { <Empty><p>"No draws yet."</p></Empty> }.into_any(),
                Ok(list) => view! {
                    <ul class="draws">
                        {list.into_iter().map(|d| view! { <DrawRow program=id draw=d reload/> }).collect_view()}
                    </ul>
                }.into_any(),
                Err(err) => view! { <ErrorNotice err/> }.into_any(),
            })}
        </section>
    }
}

#[component]
fn OpenForm(id: Uuid, reload: Callback<()>) -> impl IntoView {
    let winners = RwSignal::new("1".to_owned());
    let source = RwSignal::new(String::new());
    let flag = RwSignal::new(String::new());
    let pending = RwSignal::new(false);
    let failure = RwSignal::new(None::<ApiError>);
    let opened = RwSignal::new(None::<DrawRecord>);
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let Some(n) = winners.get_untracked().trim().parse::<i32>().ok().filter(|n| (1..=DRAW_MAX_WINNERS).contains(n))
        else {
            failure.set(Some(ApiError::invalid(format!("Choose 1 to {DRAW_MAX_WINNERS} winners."))));
            return;
        };
        let source = match source.get_untracked().trim() {
            "" => None,
            text => match SourceRef::parse(text) {
                Some(s) => Some(s),
                None => {
                    failure.set(Some(ApiError::invalid("A source is 1 to 40 characters of a–z, 0–9, _ and -.")));
                    return;
                }
            },
        };
        let flag = flag.get_untracked().parse::<FlagFilter>().ok();
        pending.set(true);
        failure.set(None);
        opened.set(None);
        spawn_local(async move {
            let body = OpenDrawRequest { winners: n, source, flag };
            let result = api::post::<_, DrawRecord>(format!("/api/owner/programs/{id}/draws"), &body).await;
            pending.set(false);
            match result {
                Ok(record) => {
                    opened.set(Some(record));
                    reload.run(());
                }
                Err(e) => failure.set(Some(match e.api_code() {
                    Some(ErrorCode::DrawAlreadyOpen) => e.explained("A draw is open already: run it first."),
                    Some(ErrorCode::DrawNoCandidates) => {
                        e.explained("Nobody waiting matches the filter, so there is nothing to draw.")
                    }
                    _ => e,
                })),
            }
        });
    };
    view! {
        <form class="card form" method="post" novalidate on:submit=submit>
            <h2>"Open a draw"</h2>
            <p class="muted small">"Everyone waiting now who matches the filter gets a ticket; with no filter, everyone waiting. The filter is part of the draw's record. Tickets are hashes of the entry and name no one."</p>
            <label for="draw-winners">{format!("Winners (1–{DRAW_MAX_WINNERS})")}</label>
            <input id="draw-winners" type="number" min="1" max=DRAW_MAX_WINNERS inputmode="numeric" prop:value=move || winners.get() on:input=move |ev| winners.set(event_target_value(&ev))/>
            <div class="filters" role="group" aria-label="Who takes part (optional filter)">
                <div>
                    <label for="draw-flag">"Flag"</label>
                    <select id="draw-flag" on:change=move |ev| flag.set(event_target_value(&ev))>
                        <option value="">"Any"</option>
                        {FlagFilter::ALL.iter().map(|f| view! { <option value=f.as_str()>{flag_filter_label(*f)}</option> }).collect_view()}
                    </select>
                </div>
                <div>
                    <label for="draw-source">"Source (ref)"</label>
                    <input id="draw-source" type="text" autocomplete="off" spellcheck="false" maxlength="40" size="12"
                        prop:value=move || source.get() on:input=move |ev| source.set(event_target_value(&ev))/>
                </div>
            </div>
            <button type="submit" disabled=move || pending.get()>{move || if pending.get() { "Opening…" } else { "Open draw" }}</button>
            {move || failure.get().map(|err| view! { <ErrorNotice err/> })}
            {move || opened.get().map(|r| view! {
                <Success><p>{format!("Draw opened with {} tickets.", r.tickets.len())}" Seed commitment: "<code class="hash">{r.seed_commitment}</code></p></Success>
            })}
        </form>
    }
}

#[component]
fn DrawRow(program: Uuid, draw: DrawSummary, reload: Callback<()>) -> impl IntoView {
    let pending = RwSignal::new(false);
    let failure = RwSignal::new(None::<ApiError>);
    let draw_id = draw.id;
    let run = Callback::new(move |()| {
        pending.set(true);
        failure.set(None);
        spawn_local(async move {
            let path = format!("/api/owner/programs/{program}/draws/{draw_id}/run");
            let result = api::post::<_, DrawRecord>(path, &serde_json::json!({})).await;
            pending.set(false);
            match result {
                Ok(_) => reload.run(()),
                Err(e) => failure.set(Some(match e.api_code() {
                    Some(ErrorCode::DrawSeatsInsufficient) => {
                        e.explained("There are not enough free seats for all the winners. Raise the seat cap or free seats, then run it again.")
                    }
                    Some(ErrorCode::DrawAlreadyRun) => e.explained("This draw has run already."),
                    _ => e,
                })),
            }
        });
    });
    let download = move |_| {
        failure.set(None);
        spawn_local(async move {
            let record = api::get::<DrawRecord>(format!("/api/owner/programs/{program}/draws/{draw_id}")).await;
            match record.map(|r| serde_json::to_string_pretty(&r).unwrap_or_default()) {
                Ok(json) => {
                    let name = format!("draw-{draw_id}.json");
                    failure.set(save_text(&name, &json, "application/json").err().map(|_| ApiError::network()));
                }
                Err(e) => failure.set(Some(e)),
            }
        });
    };
    let is_open = draw.state == "open";
    let status = match &draw.run_at {
        Some(at) => format!("Ran {}: the seed is revealed.", time(at)),
        None => "Open: not run yet".to_owned(),
    };
    view! {
        <li class="draw">
            <div class="row spread">
                <strong>{format!("{} to draw from {} tickets", draw.winners, draw.candidates)}</strong>
                <span class="badge">{if is_open { "Open" } else { "Run" }}</span>
            </div>
            <p class="small">{format!("Candidates: {}.", draw.filter.describe())}</p>
            <p class="muted small">{format!("Opened {}. {status}", time(&draw.opened_at))}</p>
            <p class="small">"Seed commitment: "<code class="hash">{draw.seed_commitment.clone()}</code></p>
            <p class="small">"Tickets hash: "<code class="hash">{draw.tickets_hash.clone()}</code></p>
            <div class="actions">
                {is_open.then(|| view! {
                    <ConfirmButton label="Run draw" question="Reveal the seed and select the winners now? A draw runs once." confirm_label="Run it" pending on_confirm=run/>
                })}
                <button type="button" class="secondary" on:click=download>"Download record"</button>
            </div>
            {move || failure.get().map(|err| view! { <ErrorNotice err/> })}
        </li>
    }
}

/// An option of the draw's flag filter: the queue's flag labels, plus "no flags".
fn flag_filter_label(filter: FlagFilter) -> &'static str {
    match filter {
        FlagFilter::Unflagged => "No flags (leave suspected fakes out)",
        FlagFilter::Has(flag) => flag_label(flag),
    }
}
