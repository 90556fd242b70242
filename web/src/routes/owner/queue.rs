//! `/owner/programs/:id/queue`: the private queue as a tool. A toolbar that stays in view
//! (sticky) holds the result count, one primary action (the next step: select the next
//! entries, or issue codes to the ticked ones), the filters' toggle (folded on a phone, so
//! the first row is on the first screen; it counts the filters applied) and a "More
//! actions" menu: the other bulk actions (offered before anything is ticked), "Clear
//! filters" and the CSV export, which follows the filters but not the email search
//! (a fragment never goes into a URL) and says so. A code not marked sent cannot be
//! redeemed: the queue says so above the rows and each such row has "Record sent". Filters: state and code (`?state=` and
//! `?invitation=` set the ones it opens with), flag, source and a server-side search by
//! email fragment; cursor paging. The count comes from the program's own figures where
//! they answer the filter, else from the page ("more follow"): no page runs a count.
//! Addresses appear here because the owner must see them; they never enter a URL.

use std::collections::BTreeSet;

use js_sys::Date;
use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::components::A;
use leptos_router::hooks::use_query_map;
use shared::api::{
    BulkDeliveryRequest, BulkDeliveryResponse, DeclineFlaggedRequest, DeclineFlaggedResponse, EntryFlag, EntryPage,
    EntrySummary, Program, DECLINE_FLAGGED_MAX, DECLINE_REASONS,
};
use shared::queue::{expires_soon, InvitationFilter};
use shared::EntryState;
use uuid::Uuid;

use crate::api::{self, ApiError};
use crate::components::bulk::{Bulk, BulkButtons, BulkPanel};
use crate::components::download::save_text;
use crate::components::invitation::{not_marked_sent, CHANNELS, NOT_MARKED_SENT};
use crate::components::pager::{Cursors, Pager};
use crate::components::program_nav::ProgramNav;
use crate::components::questions::answers_line;
use crate::components::set_title;
use crate::components::status::{loaded, Empty, ErrorNotice, RequireSignIn, Success};
use crate::components::text::{flag_label, label, time, StateBadge};
use crate::routes::owner::queue_filters::{load_page, result_count, FilterForm, Filters};
use crate::routes::owner::{load_program, uuid_param};

#[component]
pub fn Queue() -> impl IntoView {
    set_title("Program queue");
    let id = uuid_param("id");
    let program = LocalResource::new(move || load_program(id.get()));
    view! {
        <RequireSignIn>
            {move || id.get().map(|id| view! { <ProgramNav id section="Queue"/> })}
            <h1>"Queue"</h1>
            {loaded(program, move |r| match r {
                        Ok(p) => view! { <QueueView p/> }.into_any(),
                        Err(err) => view! { <ErrorNotice err/> }.into_any(),
                })}
        </RequireSignIn>
    }
}

#[component]
fn QueueView(p: Program) -> impl IntoView {
    let id = p.id;
    // `?state=` and `?invitation=` (the dashboard's figures link here) start the filter.
    let query = use_query_map();
    let initial = query.with_untracked(|q| Filters {
        state: q.get("state").filter(|s| s.parse::<EntryState>().is_ok()).unwrap_or_default(),
        invitation: q.get("invitation").filter(|s| s.parse::<InvitationFilter>().is_ok()).unwrap_or_default(),
        ..Filters::default()
    });
    // What the form shows, and what was applied.
    let form = RwSignal::new(initial.clone());
    let applied = RwSignal::new(initial);
    let cursors = Cursors::new();
    let selected = RwSignal::new(BTreeSet::<Uuid>::new());
    let bulk = Bulk::new(selected);
    let page = LocalResource::new(move || load_page(id, applied.get(), cursors.current()));
    Effect::new(move || {
        cursors.0.track();
        applied.track();
        selected.set(BTreeSet::new());
    });
    let apply_now = move |f: Filters| {
        cursors.reset();
        form.set(f.clone());
        applied.set(f);
    };
    let filtered = move || applied.with(|f| *f != Filters::default());
    let export_error = RwSignal::new(None::<ApiError>);
    let slug = p.slug.clone();
    let export = move |_| {
        let f = applied.get_untracked();
        let query = f.query();
        let name = match query.is_empty() {
            true => format!("{slug}-entries.csv"),
            false => format!("{slug}-entries-filtered.csv"),
        };
        let url = match query.is_empty() {
            true => format!("/api/owner/programs/{id}/entries.csv"),
            false => format!("/api/owner/programs/{id}/entries.csv?{query}"),
        };
        spawn_local(async move {
            match api::get_text(url).await {
                Ok(csv) => export_error.set(save_text(&name, &csv, "text/csv").err().map(|_| ApiError::network())),
                Err(e) => export_error.set(Some(e)),
            }
        });
    };
    let counts = RwSignal::new(p.counts.clone());
    let refresh = Callback::new(move |()| {
        page.refetch();
        // The program's counts move with the rows: read them again.
        spawn_local(async move {
            if let Ok(p) = load_program(Some(id)).await {
                counts.set(p.counts);
            }
        });
    });
    // The page shown (its index, rows and whether more follow), set when a page arrives
    // (reading `page` here would tie it to the outer transition); the count follows it and
    // the program's figures, which are read again after every action.
    let shown = RwSignal::new(None::<(usize, usize, bool)>);
    let count = move |pg: &EntryPage| {
        shown.set(Some((cursors.0.with_untracked(Vec::len), pg.entries.len(), pg.next_cursor.is_some())));
        // Ticks are of rows on screen: a page that replaced another (a late answer too)
        // keeps none of the rows it does not show.
        let on_page: BTreeSet<Uuid> = pg.entries.iter().map(|e| e.id).collect();
        if selected.with_untracked(|s| !s.is_subset(&on_page)) {
            selected.update(|s| s.retain(|id| on_page.contains(id)));
        }
    };
    let showing = move || {
        let (n, rows, more) = shown.get()?;
        let total = applied.with_untracked(|f| counts.with(|c| f.known_total(c)));
        Some(result_count(total, n, rows, more))
    };
    // How many pages, where the program's figures say how many entries match.
    let pages = Signal::derive(move || {
        let total = applied.with(|f| counts.with(|c| f.known_total(c)))?;
        let size = crate::routes::owner::queue_filters::PAGE_SIZE;
        usize::try_from((total.max(1) + size - 1) / size).ok()
    });
    let by_invitation = move |f: InvitationFilter| {
        let on = move || applied.with(|a| a.invitation == f.as_str());
        let click = move |_| apply_now(Filters { invitation: f.as_str().to_owned(), ..Filters::default() });
        (on, click)
    };
    // Issue 31: answers as an optional column, and the current notice's choices to filter by.
    let show_answers = RwSignal::new(false);
    let choices: Vec<(String, String, String)> = p
        .notice
        .iter()
        .flat_map(|n| n.questions.iter())
        .filter(|q| q.kind.has_choices())
        .flat_map(|q| q.choices().iter().map(|c| (q.label.clone(), format!("{}={c}", q.id), c.clone())))
        .collect();
    let asks = p.notice.as_ref().is_some_and(|n| !n.questions.is_empty());
    let (unsent_on, show_unsent) = by_invitation(InvitationFilter::Unsent);
    let (expiring_on, show_expiring) = by_invitation(InvitationFilter::Expiring);
    // On a phone the filters start folded, so the rows start on the first screen (issue 27);
    // the toggle says how many are applied.
    let filters_open = RwSignal::new(wide_screen());
    let active = move || applied.with(Filters::active);
    // The entry whose code is being recorded as sent from its row.
    let recording = RwSignal::new(None::<(Uuid, String)>);
    let not_sent = move || counts.with(|c| c.not_sent);
    view! {
        <section class="card queue-toolbar" aria-label="Queue toolbar">
            <p class="result-count" role="status">{showing}</p>
            <BulkButtons bulk more=Box::new(move || view! {
                <button type="button" class="secondary" disabled=move || !filtered() on:click=move |_| apply_now(Filters::default())>"Clear filters"</button>
                <button type="button" class="secondary" on:click=export aria-describedby="export-scope">"Export CSV"</button>
                <p id="export-scope" class="muted small">{move || applied.with(Filters::export_scope)}</p>
                {asks.then(|| view! {
                    <div class="check">
                        <input id="queue-show-answers" type="checkbox" prop:checked=move || show_answers.get()
                            on:change=move |ev| show_answers.set(event_target_checked(&ev))/>
                        <label for="queue-show-answers">"Show answers"</label>
                    </div>
                })}
            }.into_any())>
                <button type="button" class="secondary" aria-controls="queue-filters"
                    aria-expanded=move || filters_open.get().to_string() on:click=move |_| filters_open.update(|o| *o = !*o)>
                    {move || match active() {
                        0 => "Filters".to_owned(),
                        n => format!("Filters · {n} active"),
                    }}
                </button>
            </BulkButtons>
        </section>
        <BulkPanel bulk program_id=id slug=p.slug.clone() max_days=p.max_invite_days done=refresh/>
        {move || export_error.get().map(|err| view! { <ErrorNotice err/> })}
        <div id="queue-filters" class="filters-panel" hidden=move || !filters_open.get()>
            <FilterForm form apply=Callback::new(apply_now) choices/>
        </div>
        {move || (not_sent() > 0).then(|| view! {
            <div class="alert alert-warn unsent-banner">
                <p><strong>{not_marked_sent(not_sent())}</strong></p>
                {(!unsent_on()).then(|| view! {
                    <button type="button" class="secondary" on:click=show_unsent>"Show them"</button>
                })}
                <p class="small">"Record each one with its row's “Record sent”, or tick them and use the batch's “Mark all sent” after a bulk issue."</p>
            </div>
        })}
        <RecordSent program_id=id entry=recording done=refresh/>
        {loaded(page, move |r| match r {
                    Ok(pg) if { count(&pg); pg.entries.is_empty() } => view! {
                        <Empty><p>"No entries match."</p></Empty>
                        <Pager cursors next=None label="Queue pages" pages/>
                    }.into_any(),
                    Ok(pg) => view! {
                        <Rows program_id=id entries=pg.entries selected recording answers=show_answers.get()/>
                        <Pager cursors next=pg.next_cursor label="Queue pages" pages/>
                    }.into_any(),
                    Err(err) => view! { <ErrorNotice err/> }.into_any(),
            })}
        // Below the rows (issue 27: on a phone they pushed the rows a screen and a half down).
        <section class="card queue-codes" aria-label="Codes to act on">
            <p class="small">"Codes to act on (click to show them):"</p>
            <div class="row">
                <button type="button" class="secondary" aria-pressed=move || unsent_on().to_string() on:click=show_unsent>
                    {move || { let n = counts.with(|c| c.not_sent); format!("{n} {} not marked sent", if n == 1 { "code" } else { "codes" }) }}
                </button>
                <button type="button" class="secondary" aria-pressed=move || expiring_on().to_string() on:click=show_expiring>
                    {move || format!("{} expiring within 48 hours", counts.with(|c| c.expiring_soon))}
                </button>
            </div>
        </section>
        <DeclineFlagged program_id=id done=refresh/>
    }
}

/// Records that the code of one entry was sent (its row's "Record sent"), through the
/// batch endpoint with that one entry: a channel, then "Mark sent".
#[component]
fn RecordSent(program_id: Uuid, entry: RwSignal<Option<(Uuid, String)>>, done: Callback<()>) -> impl IntoView {
    let channel = RwSignal::new(String::new());
    let pending = RwSignal::new(false);
    let outcome = RwSignal::new(None::<Result<String, ApiError>>);
    let field = NodeRef::<leptos::html::Select>::new();
    Effect::new(move || {
        if let Some(el) = field.get() {
            let _ = el.focus();
        }
    });
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let (Some((eid, email)), ch) = (entry.get_untracked(), channel.get_untracked()) else { return };
        if ch.is_empty() {
            return;
        }
        pending.set(true);
        outcome.set(None);
        spawn_local(async move {
            let body = BulkDeliveryRequest { entry_ids: vec![eid], channel: ch, reference: None };
            let path = format!("/api/owner/programs/{program_id}/invitations/delivery-records");
            let result = api::post::<_, BulkDeliveryResponse>(path, &body).await;
            pending.set(false);
            if result.is_ok() {
                entry.set(None);
                channel.set(String::new());
                done.run(());
            }
            outcome.set(Some(result.map(|_| format!("The code to {email} is marked sent. It can now be redeemed."))));
        });
    };
    view! {
        {move || entry.get().map(|(_, email)| view! {
            <section class="card record-sent" aria-labelledby="record-heading">
                <h2 id="record-heading">{format!("Record that you sent the code to {email}")}</h2>
                <p class="small">{NOT_MARKED_SENT}</p>
                <form class="form" method="post" on:submit=submit>
                    <label for="record-channel">"Sent through"</label>
                    <select id="record-channel" node_ref=field on:change=move |ev| channel.set(event_target_value(&ev)) prop:value=move || channel.get()>
                        <option value="">"Choose a channel…"</option>
                        {CHANNELS.iter().map(|c| view! { <option value=*c>{label(c)}</option> }).collect_view()}
                    </select>
                    <div class="row">
                        <button type="submit" class="primary" disabled=move || pending.get() || channel.with(String::is_empty)>"Mark sent"</button>
                        <button type="button" class="secondary" on:click=move |_| { entry.set(None); outcome.set(None); }>"Cancel"</button>
                    </div>
                </form>
            </section>
        })}
        {move || outcome.get().map(|r| match r {
            Ok(text) => view! { <Success><p>{text}</p></Success> }.into_any(),
            Err(err) => view! { <ErrorNotice err/> }.into_any(),
        })}
    }
}

#[component]
fn Rows(
    program_id: Uuid,
    entries: Vec<EntrySummary>,
    selected: RwSignal<BTreeSet<Uuid>>,
    /// Set by a row's "Record sent".
    recording: RwSignal<Option<(Uuid, String)>>,
    /// Whether the answers column is shown.
    answers: bool,
) -> impl IntoView {
    let ids: Vec<Uuid> = entries.iter().map(|e| e.id).collect();
    crate::routes::owner::remember_queue(program_id, ids.clone());
    let all_ids = ids.clone();
    let all = move || selected.with(|s| all_ids.iter().all(|i| s.contains(i)));
    let toggle_all = move |ev| {
        let on = event_target_checked(&ev);
        selected.update(|s| ids.iter().for_each(|i| toggle(s, *i, on)));
    };
    let rows = entries
        .into_iter()
        .map(|e| {
            let eid = e.id;
            let check_label = format!("Select {}", e.email);
            let email = e.email.clone();
            view! {
                <tr>
                    <td><input type="checkbox" aria-label=check_label prop:checked=move || selected.with(|s| s.contains(&eid))
                        on:change=move |ev| { let on = event_target_checked(&ev); selected.update(|s| toggle(s, eid, on)); }/></td>
                    <td class="email"><A href=format!("/owner/programs/{program_id}/entries/{eid}")>{e.email}</A></td>
                    <td><StateBadge state=e.state.as_str()/>{e.invitation.map(|i| {
                        let (issued, expires, now) = (Date::parse(&i.issued_at), Date::parse(&i.expires_at), Date::now());
                        let live = expires > now;
                        let record = format!("Record sent: {email}");
                        view! {
                            {(!i.sent).then(|| view! { " " <span class="badge badge-unsent">"Not marked sent"</span> })}
                            {(!i.sent && live).then(|| view! {
                                " " <button type="button" class="secondary record-button" aria-label=record
                                    on:click=move |_| recording.set(Some((eid, email.clone())))>"Record sent"</button>
                            })}
                            {expires_soon(issued, expires, now).then(|| view! { " " <span class="badge badge-expiring">"Expires soon"</span> })}
                            {(!live).then(|| view! { " " <span class="badge badge-expired">"Expired"</span> })}
                        }
                    })}</td>
                    <td class="nowrap joined hide-narrow">{time(&e.created_at)}</td>
                    <td class="hide-narrow">{format!("v{}", e.notice_version)}</td>
                    <td class="flags">{e.flags.iter().map(|f| view! { <span class="badge flag">{flag_label(*f)}</span> " " }).collect_view()}
                        {e.verified_at_join.is_some().then(|| view! { <span class="badge verified">"Verified account"</span> " " })}
                        {e.source.map(|s| view! { <span class="muted small">{format!("ref: {s}")}</span> })}</td>
                    {answers.then(|| view! { <td class="answers-cell">{answers_line(&e.answers)}</td> })}
                </tr>
            }
        })
        .collect_view();
    view! {
        <div class="table-wrap">
            <table class="queue">
                <caption class="sr-only">"Entries on this page"</caption>
                <thead>
                    <tr>
                        <th scope="col"><input type="checkbox" aria-label="Select all on this page" prop:checked=all on:change=toggle_all/></th>
                        <th scope="col">"Email"</th>
                        <th scope="col">"State"</th>
                        <th scope="col" class="hide-narrow">"Joined"</th>
                        <th scope="col" class="hide-narrow">"Notice"</th>
                        <th scope="col">"Flags"</th>
                        {answers.then(|| view! { <th scope="col">"Answers"</th> })}
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
    }
}

/// Wider than a phone (the breakpoint of style.css).
fn wide_screen() -> bool {
    window().inner_width().ok().and_then(|w| w.as_f64()).is_some_and(|w| w > 560.0)
}

fn toggle(set: &mut BTreeSet<Uuid>, id: Uuid, on: bool) {
    if on {
        set.insert(id);
    } else {
        set.remove(&id);
    }
}

/// Declines the first N waiting entries carrying a flag, in queue order, with one reason
/// (issue 15): `POST …/entries/decline-flagged`.
#[component]
fn DeclineFlagged(program_id: Uuid, done: Callback<()>) -> impl IntoView {
    let flag = RwSignal::new(EntryFlag::DisposableDomain);
    let count = RwSignal::new("50".to_owned());
    let reason = RwSignal::new(String::new());
    let pending = RwSignal::new(false);
    let outcome = RwSignal::new(None::<Result<usize, ApiError>>);
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let Ok(n) = count.get_untracked().trim().parse::<i32>() else { return };
        let body = DeclineFlaggedRequest { flag: flag.get_untracked(), count: n, reason_code: reason.get_untracked() };
        pending.set(true);
        spawn_local(async move {
            let url = format!("/api/owner/programs/{program_id}/entries/decline-flagged");
            let result = api::post::<_, DeclineFlaggedResponse>(url, &body).await.map(|r| r.declined.len());
            pending.set(false);
            if result.is_ok() {
                done.run(());
            }
            outcome.set(Some(result));
        });
    };
    view! {
        <details class="card">
            <summary>"Decline flagged entries"</summary>
            <form class="form" method="post" on:submit=submit>
                <p class="muted small">"Declines waiting entries that carry the flag, oldest first. Applicants are not told why; the reason goes to the audit trail."</p>
                <div class="fields">
                    <div>
                        <label for="decline-flag">"Flag"</label>
                        <select id="decline-flag" on:change=move |ev| {
                            if let Ok(f) = event_target_value(&ev).parse() { flag.set(f) }
                        }>
                            {EntryFlag::ALL.iter().map(|f| view! { <option value=f.as_str()>{flag_label(*f)}</option> }).collect_view()}
                        </select>
                    </div>
                    <div>
                        <label for="decline-count">"At most"</label>
                        <input id="decline-count" type="number" min="1" max=DECLINE_FLAGGED_MAX inputmode="numeric"
                            prop:value=move || count.get() on:input=move |ev| count.set(event_target_value(&ev))/>
                    </div>
                    <div>
                        <label for="decline-reason">"Reason"</label>
                        <select id="decline-reason" on:change=move |ev| reason.set(event_target_value(&ev))>
                            <option value="">"Choose a reason…"</option>
                            {DECLINE_REASONS.iter().map(|o| view! { <option value=*o>{label(o)}</option> }).collect_view()}
                        </select>
                    </div>
                </div>
                <button type="submit" class="danger" disabled=move || pending.get() || reason.get().is_empty()>"Decline flagged"</button>
                <p role="status" aria-live="polite">{move || match outcome.get() {
                    Some(Ok(n)) => format!("{n} declined."),
                    _ => String::new(),
                }}</p>
                {move || outcome.get().and_then(Result::err).map(|err| view! { <ErrorNotice err/> })}
            </form>
        </details>
    }
}
