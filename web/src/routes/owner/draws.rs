//! `/owner/programs/:id/draws`: lottery draws on public randomness (issues 16, 29). Opening
//! a draw fixes who takes part — the waiting entries, optionally only those from one
//! source and/or with a flag filter, plus, until an optional later close, those who sign
//! up — the number of winners and a future drand round; running it takes that round's
//! randomness (from the server's relay, or a signature pasted from any relay) and selects
//! the winners. Each draw shows its rule in words, its round and its state; its record
//! downloads as JSON for `vestibule verify-draw` or `tools/verify_draw.py`, and is public.

use leptos::prelude::*;
use leptos::task::spawn_local;
use shared::draws::{BeaconDrawRecord, DrawState};
use shared::trust::{DrawSummary, FlagFilter, OpenDrawRequest, DRAW_MAX_WINNERS};
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
    // "Draw opened …": news until a draw runs or is cancelled.
    let opened = RwSignal::new(None::<BeaconDrawRecord>);
    view! {
        <h1>"Lottery"</h1>
        <p class="lead">"When more people wait than there are seats, a draw picks the winners fairly, and anyone can check it: opening it fixes who takes part and a future round of the drand public randomness beacon; nobody, you included, can know the result before that round is published. The draw and its record are public, and recompute with "<code>"vestibule verify-draw"</code>" or "<code>"tools/verify_draw.py"</code>"."</p>
        <OpenForm id reload opened/>
        <section class="card">
            <h2>"Draws"</h2>
            {loaded(draws, move |r| match r {
                Ok(list) if list.is_empty() => view! { <Empty><p>"No draws yet."</p></Empty> }.into_any(),
                Ok(list) => view! {
                    <ul class="draws">
                        {list.into_iter().map(|d| view! { <DrawRow program=id draw=d reload opened/> }).collect_view()}
                    </ul>
                }.into_any(),
                Err(err) => view! { <ErrorNotice err/> }.into_any(),
            })}
        </section>
    }
}

/// A `datetime-local` value (the browser's local time) as an RFC 3339 instant.
fn local_to_rfc3339(value: &str) -> Option<String> {
    let date = js_sys::Date::new(&wasm_bindgen::JsValue::from_str(value));
    (!date.get_time().is_nan()).then(|| String::from(date.to_iso_string()))
}

#[component]
fn OpenForm(id: Uuid, reload: Callback<()>, opened: RwSignal<Option<BeaconDrawRecord>>) -> impl IntoView {
    let winners = RwSignal::new("1".to_owned());
    let source = RwSignal::new(String::new());
    let flag = RwSignal::new(String::new());
    let closes = RwSignal::new(String::new());
    let pending = RwSignal::new(false);
    let failure = RwSignal::new(None::<ApiError>);
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
        let closes_at = match closes.get_untracked().trim() {
            "" => None,
            text => match local_to_rfc3339(text) {
                Some(at) => Some(at),
                None => {
                    failure.set(Some(ApiError::invalid("Give the close as a date and time, or leave it empty.")));
                    return;
                }
            },
        };
        let flag = flag.get_untracked().parse::<FlagFilter>().ok();
        pending.set(true);
        failure.set(None);
        opened.set(None);
        spawn_local(async move {
            let body = OpenDrawRequest { winners: n, source, flag, closes_at };
            let result = api::post::<_, BeaconDrawRecord>(format!("/api/owner/programs/{id}/draws"), &body).await;
            pending.set(false);
            match result {
                Ok(record) => {
                    opened.set(Some(record));
                    reload.run(());
                }
                Err(e) => failure.set(Some(match e.api_code() {
                    Some(ErrorCode::DrawAlreadyOpen) => e.explained("A draw is open already: run or cancel it first."),
                    Some(ErrorCode::DrawNoCandidates) => {
                        e.explained("Nobody waiting matches the filter, so there is nothing to draw.")
                    }
                    Some(ErrorCode::InvalidClosesAt) => e.explained("The close must be in the future, within 90 days."),
                    _ => e,
                })),
            }
        });
    };
    view! {
        <form class="card form" method="post" novalidate on:submit=submit>
            <h2>"Open a draw"</h2>
            <p class="muted small">"Everyone waiting who matches the filter gets a ticket; with no filter, everyone waiting. With a later close, people who sign up until then take part too. The filter and the close are part of the draw's public record. Tickets are hashes of the entry and name no one."</p>
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
            <label for="draw-closes">"Entries close (optional; empty: now)"</label>
            <input id="draw-closes" type="datetime-local" prop:value=move || closes.get() on:input=move |ev| closes.set(event_target_value(&ev))/>
            <button type="submit" disabled=move || pending.get()>{move || if pending.get() { "Opening…" } else { "Open draw" }}</button>
            {move || failure.get().map(|err| view! { <ErrorNotice err/> })}
            {move || opened.get().map(|r| {
                let what = if r.state == DrawState::Open {
                    format!("Draw opened; entries close {}.", time(&r.closes_at))
                } else {
                    format!("Draw opened with {} tickets.", r.tickets.len())
                };
                view! { <Success><p>{what}{format!(" It runs on drand round {}, due {}.", r.beacon.round, time(&r.beacon.round_at))}</p></Success> }
            })}
        </form>
    }
}

#[component]
fn DrawRow(
    program: Uuid,
    draw: DrawSummary,
    reload: Callback<()>,
    opened: RwSignal<Option<BeaconDrawRecord>>,
) -> impl IntoView {
    let pending = RwSignal::new(false);
    let failure = RwSignal::new(None::<ApiError>);
    let paste = RwSignal::new(None::<String>);
    let draw_id = draw.id;
    let base = format!("/api/owner/programs/{program}/draws/{draw_id}");
    let round = draw.round;
    let send = {
        let base = base.clone();
        move |body: serde_json::Value| {
            let path = format!("{base}/run");
            pending.set(true);
            failure.set(None);
            spawn_local(async move {
                let result = api::post::<_, serde_json::Value>(path, &body).await;
                pending.set(false);
                match result {
                    Ok(_) => {
                        opened.set(None);
                        reload.run(());
                    }
                    Err(e) => failure.set(Some(run_failure(e, round, paste))),
                }
            });
        }
    };
    let run = {
        let send = send.clone();
        Callback::new(move |()| send(serde_json::json!({})))
    };
    let run_pasted = move |_| {
        let signature = paste.get_untracked().unwrap_or_default();
        send(serde_json::json!({"beacon": {"round": round.unwrap_or_default(), "signature": signature.trim()}}));
    };
    let cancel = {
        let path = format!("{base}/cancel");
        Callback::new(move |()| {
            let path = path.clone();
            pending.set(true);
            failure.set(None);
            spawn_local(async move {
                let body = serde_json::json!({"reasonCode": "owner_discretion"});
                let result = api::post::<_, serde_json::Value>(path, &body).await;
                pending.set(false);
                match result {
                    Ok(_) => {
                        opened.set(None);
                        reload.run(());
                    }
                    Err(e) => failure.set(Some(e)),
                }
            });
        })
    };
    let winners = (draw.state == DrawState::Run && draw.format >= 3).then(|| {
        let path = base.clone();
        view! { <Winners program path/> }
    });
    let download = move |_| {
        let path = base.clone();
        failure.set(None);
        spawn_local(async move {
            match api::get::<serde_json::Value>(path)
                .await
                .map(|r| serde_json::to_string_pretty(&r).unwrap_or_default())
            {
                Ok(json) => {
                    let name = format!("draw-{draw_id}.json");
                    failure.set(save_text(&name, &json, "application/json").err().map(|_| ApiError::network()));
                }
                Err(e) => failure.set(Some(e)),
            }
        });
    };
    let runnable = matches!(draw.state, DrawState::Closed) || (draw.state == DrawState::Open && draw.format < 3);
    let cancellable = matches!(draw.state, DrawState::Open | DrawState::Closed);
    let status = match (draw.state, &draw.run_at, &draw.cancelled_at, &draw.closes_at) {
        (DrawState::Run, Some(at), _, _) if draw.format < 3 => format!("Ran {}: the seed is revealed.", time(at)),
        (DrawState::Run, Some(at), _, _) => format!("Ran {} on the round's randomness.", time(at)),
        (DrawState::Cancelled, _, Some(at), _) => format!("Cancelled {}.", time(at)),
        (DrawState::Open, _, _, Some(closes)) => format!("Entries close {}.", time(closes)),
        (DrawState::Closed, ..) => "Closed: the tickets are frozen.".to_owned(),
        _ => "Open: not run yet.".to_owned(),
    };
    view! {
        <li class="draw">
            <div class="row spread">
                <strong>{format!("{} to draw from {} tickets", draw.winners, draw.candidates)}</strong>
                <span class="badge">{state_label(draw.state)}</span>
            </div>
            <p class="small">{format!("Candidates: {}.", draw.filter.describe())}</p>
            <p class="muted small">{format!("Opened {}. {status}", time(&draw.opened_at))}</p>
            {draw.round.zip(draw.round_at.clone()).map(|(r, at)| view! {
                <p class="small">{format!("Randomness: drand round {r}, due {}.", time(&at))}</p>
            })}
            {winners}
            {draw.tickets_hash.clone().map(|h| view! { <p class="small">"Tickets hash: "<code class="hash">{h}</code></p> })}
            {draw.seed_commitment.clone().map(|c| view! { <p class="small">"Seed commitment: "<code class="hash">{c}</code></p> })}
            <div class="actions">
                {runnable.then(|| view! {
                    <ConfirmButton label="Run draw" question="Take the round's randomness and select the winners now? A draw runs once." confirm_label="Run it" pending on_confirm=run/>
                })}
                {cancellable.then(|| view! {
                    <ConfirmButton label="Cancel draw" question="Cancel this draw? It stays listed, publicly, as cancelled." confirm_label="Cancel it" pending on_confirm=cancel/>
                })}
                <button type="button" class="secondary" on:click=download>"Download record"</button>
            </div>
            {move || paste.get().is_some().then(|| view! {
                <div class="form">
                    <label for=format!("draw-signature-{draw_id}")>{format!("Signature of drand round {} (hex, from any relay)", round.unwrap_or_default())}</label>
                    <input id=format!("draw-signature-{draw_id}") type="text" autocomplete="off" spellcheck="false"
                        on:input=move |ev| paste.set(Some(event_target_value(&ev)))/>
                    <button type="button" disabled=move || pending.get() on:click=run_pasted.clone()>"Run with this signature"</button>
                </div>
            })}
            {move || failure.get().map(|err| view! { <ErrorNotice err/> })}
        </li>
    }
}

/// A run draw's outcome: how many it drew, how many of them were selected (a winner who
/// had left the queue by then is not), and the way on: the selected winners in the queue,
/// where their codes are issued.
#[component]
fn Winners(program: Uuid, path: String) -> impl IntoView {
    let record = LocalResource::new(move || api::get::<BeaconDrawRecord>(path.clone()));
    move || {
        record.get().and_then(Result::ok).map(|r| {
            let drawn = r.drawn.len();
            let selected = drawn.saturating_sub(r.not_selected.len());
            let noun = if selected == 1 { "winner" } else { "winners" };
            let left = (selected < drawn).then(|| format!(" ({} drawn had left the queue)", drawn - selected));
            view! {
                <div class="alert alert-ok draw-winners" role="status">
                    <p><strong>{format!("{selected} {noun} selected")}</strong>{left}"."</p>
                    <p><a class="button" href=format!("/owner/programs/{program}/queue?state=selected")>"Issue codes to the winners"</a></p>
                </div>
            }
        })
    }
}

fn run_failure(e: ApiError, round: Option<u64>, paste: RwSignal<Option<String>>) -> ApiError {
    let round = round.unwrap_or_default();
    match e.api_code() {
        Some(ErrorCode::DrawSeatsInsufficient) => e.explained(
            "There are not enough free seats for all the winners. Raise the seat cap or free seats, then run it again.",
        ),
        Some(ErrorCode::DrawAlreadyRun) => e.explained("This draw has run already."),
        Some(ErrorCode::DrawNotClosed) => e.explained("Entries have not closed yet."),
        Some(ErrorCode::BeaconNotDue) => {
            e.explained(format!("Drand round {round} is not published yet; run it once it is."))
        }
        Some(ErrorCode::BeaconUnavailable) => {
            paste.set(Some(String::new()));
            e.explained(format!(
                "No drand relay answered with round {round}. Paste its signature from any relay below."
            ))
        }
        Some(ErrorCode::InvalidBeacon) => e.explained(format!("That is not round {round}'s signature.")),
        _ => e,
    }
}

fn state_label(state: DrawState) -> &'static str {
    match state {
        DrawState::Open => "Open",
        DrawState::Closed => "Closed",
        DrawState::Run => "Run",
        DrawState::Cancelled => "Cancelled",
    }
}

/// An option of the draw's flag filter: the queue's flag labels, plus "no flags".
fn flag_filter_label(filter: FlagFilter) -> &'static str {
    match filter {
        FlagFilter::Unflagged => "No flags (leave suspected fakes out)",
        FlagFilter::Has(flag) => flag_label(flag),
    }
}
