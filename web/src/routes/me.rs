//! `/me`: the signed-in person's own entries across programs, their state and place while
//! waiting, a link to early access when active, and withdrawal after a confirmation.
//! Issue 16: their lottery tickets and whether each was drawn, erasure of an entry (the
//! receipt id is shown once, the entry then no longer exists under their address), and a
//! download of everything held about them (`GET /api/me/export`, JSON).

use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::components::A;
use shared::api::{OwnEntry, WithdrawResponse};
use shared::trust::{ErasureReceipt, OwnDrawTicket, PersonalDataExport};
use shared::EntryState;

use crate::api::{self, ApiError};
use crate::components::confirm::ConfirmButton;
use crate::components::download::save_text;
use crate::components::set_title;
use crate::components::status::{loaded, Empty, ErrorNotice, RequireSignIn, Success};
use crate::components::text::{time, StateBadge};

#[component]
pub fn Me() -> impl IntoView {
    set_title("My waitlists");
    view! {
        <h1>"My waitlists"</h1>
        <RequireSignIn><Entries/><Export/></RequireSignIn>
    }
}

#[component]
fn Entries() -> impl IntoView {
    let entries = LocalResource::new(|| api::get::<Vec<OwnEntry>>("/api/me/entries"));
    let done = RwSignal::new(None::<String>);
    let erased = RwSignal::new(None::<(String, ErasureReceipt)>);
    let on_erased = Callback::new(move |(slug, receipt): (String, ErasureReceipt)| {
        done.set(None);
        erased.set(Some((slug, receipt)));
        entries.refetch();
    });
    view! {
        {move || done.get().map(|slug| view! { <Success><p>{format!("You have left the waitlist for {slug}.")}</p></Success> })}
        {move || erased.get().map(|(slug, r)| view! {
            <Success>
                <p>{format!("Your entry for {slug} was erased on {}.", time(&r.erased_at))}</p>
                <p>"Receipt: "<code id="erasure-receipt">{r.receipt_id.to_string()}</code></p>
                <p class="muted small">"Keep the receipt id: it is your proof of the erasure, should you need to ask about it."</p>
            </Success>
        })}
        {loaded(entries, move |r| match r {
                    Ok(list) if list.is_empty() => view! {
                        <Empty>
                            <p>"You are not on any waitlist under the addresses verified for this account."</p>
                            <p class="muted">"If you joined with another address, sign in with that one."</p>
                        </Empty>
                    }.into_any(),
                    Ok(list) => view! {
                        <ul class="cards">
                            {list.into_iter().map(|e| view! { <EntryCard entry=e reload=Callback::new(move |slug| { erased.set(None); done.set(Some(slug)); entries.refetch(); }) on_erased/> }).collect_view()}
                        </ul>
                    }.into_any(),
                    Err(err) => view! { <ErrorNotice err/> }.into_any(),
            })}
    }
}

#[component]
fn EntryCard(
    entry: OwnEntry,
    reload: Callback<String>,
    on_erased: Callback<(String, ErasureReceipt)>,
) -> impl IntoView {
    let OwnEntry { program_slug: slug, state, joined_at, position } = entry;
    let pending = RwSignal::new(false);
    let failure = RwSignal::new(None::<ApiError>);
    let can_withdraw = state.may_become(EntryState::Withdrawn);
    let withdraw_slug = slug.clone();
    let withdraw = Callback::new(move |()| {
        let slug = withdraw_slug.clone();
        pending.set(true);
        failure.set(None);
        spawn_local(async move {
            let result =
                api::post::<_, WithdrawResponse>(&format!("/api/me/waitlist/{slug}/withdraw"), &serde_json::json!({}))
                    .await;
            pending.set(false);
            match result {
                Ok(_) => reload.run(slug),
                Err(e) => failure.set(Some(e)),
            }
        });
    });
    let erase_slug = slug.clone();
    let erase = Callback::new(move |()| {
        let slug = erase_slug.clone();
        pending.set(true);
        failure.set(None);
        spawn_local(async move {
            let result =
                api::post::<_, ErasureReceipt>(&format!("/api/me/waitlist/{slug}/erase"), &serde_json::json!({})).await;
            pending.set(false);
            match result {
                Ok(receipt) => on_erased.run((slug, receipt)),
                Err(e) => failure.set(Some(e)),
            }
        });
    });
    let erase_question = format!(
        "Erase your entry for {slug}? It is withdrawn if still open, your address is removed from it at once, and it cannot be restored. You may join again later as a new entry."
    );
    let place = position
        .filter(|_| state == EntryState::Waiting)
        .map(|p| view! { <p>{format!("Place in the queue: {p}")}</p> });
    let open = (state == EntryState::Active).then(|| {
        view! { <p><A href=format!("/early-access/{slug}") attr:class="button">"Open early access"</A></p> }
    });
    let question = format!(
        "Leave the waitlist for {slug}? Any invitation or access you have for it ends now. This cannot be undone."
    );
    view! {
        <li class="card entry-card">
            <div class="row spread">
                <h2>{slug.clone()}</h2>
                <StateBadge state=state.as_str()/>
            </div>
            <p class="muted">{format!("Joined {}", time(&joined_at))}</p>
            {place}
            {open}
            {can_withdraw.then(|| view! {
                <ConfirmButton label="Leave this waitlist" question confirm_label="Yes, leave" pending on_confirm=withdraw/>
            })}
            <Tickets slug=slug.clone()/>
            <div class="erase-zone">
                <ConfirmButton label="Erase my entry" question=erase_question confirm_label="Yes, erase" pending on_confirm=erase/>
            </div>
            {move || failure.get().map(|err| view! { <ErrorNotice err/> })}
        </li>
    }
}

/// The entry's lottery tickets (none for a program without draws), each with where its
/// draw stands and, once run, whether it won; the program's draws are public, with how
/// they are run.
#[component]
fn Tickets(slug: String) -> impl IntoView {
    let path = format!("/api/me/waitlist/{slug}/draws");
    let tickets = LocalResource::new(move || api::get::<Vec<OwnDrawTicket>>(path.clone()));
    move || {
        let list = tickets.get().and_then(Result::ok).unwrap_or_default();
        let how = format!("/waitlist/{slug}/draws");
        (!list.is_empty()).then(|| {
            view! {
                <div class="tickets">
                    <h3>"Lottery"</h3>
                    <ul>
                        {list.into_iter().map(|t| {
                            let outcome = match (t.draw_state.as_str(), t.excluded, t.drawn) {
                                ("cancelled", _, _) => "Draw cancelled",
                                (_, true, _) => "Not in the draw: your entry left the queue before it closed",
                                ("open", _, _) => "Entries still open",
                                ("closed", _, _) => "Waiting for the draw's random round",
                                (_, _, true) => "Drawn",
                                (_, _, false) => "Not drawn",
                            };
                            // The outcome first; the ticket (a 64-character hash, for checking
                            // the draw) short, the whole of it one click away.
                            let short = format!("{}…", t.ticket.get(..8).unwrap_or(&t.ticket));
                            view! {
                                <li class="small">
                                    <strong>{outcome}</strong>" · your ticket "<code>{short}</code>
                                    <details class="ticket-full"><summary>"The whole ticket, to check the draw"</summary><code class="hash">{t.ticket}</code></details>
                                </li>
                            }
                        }).collect_view()}
                    </ul>
                    <p><A href=how attr:class="button secondary">"How this draw is run"</A></p>
                </div>
            }
        })
    }
}

/// Downloads everything held about the signed-in person as JSON.
#[component]
fn Export() -> impl IntoView {
    let pending = RwSignal::new(false);
    let failure = RwSignal::new(None::<ApiError>);
    let download = move |_| {
        pending.set(true);
        failure.set(None);
        spawn_local(async move {
            let export = api::get::<PersonalDataExport>("/api/me/export").await;
            pending.set(false);
            match export.map(|e| serde_json::to_string_pretty(&e).unwrap_or_default()) {
                Ok(json) => failure.set(
                    save_text("my-vestibule-data.json", &json, "application/json").err().map(|_| ApiError::network()),
                ),
                Err(e) => failure.set(Some(e)),
            }
        });
    };
    view! {
        <section class="card">
            <h2>"Your data"</h2>
            <p class="muted">"Download everything held about you under your verified addresses: your entries, the notice each was accepted under and when, invitations (without codes) and access."</p>
            <button type="button" class="secondary" disabled=move || pending.get() on:click=download>"Download my data"</button>
            {move || failure.get().map(|err| view! { <ErrorNotice err/> })}
        </section>
    }
}
