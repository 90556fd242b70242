//! `/owner/programs/:id/queue`: the private queue with a state filter, a server-side
//! search by email fragment, cursor paging, row selection for bulk actions and a CSV
//! export. Addresses appear here because the owner must see them; they never enter the
//! page's own URL.

use std::collections::BTreeSet;

use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::components::A;
use shared::api::{
    DeclineFlaggedRequest, DeclineFlaggedResponse, EntryFlag, EntryPage, EntrySearch, EntrySummary, Program,
    DECLINE_FLAGGED_MAX, DECLINE_REASONS,
};
use shared::EntryState;
use uuid::Uuid;

use crate::api::{self, ApiError};
use crate::components::bulk::{BulkActions, SelectNext};
use crate::components::download::save_text;
use crate::components::pager::{Cursors, Pager};
use crate::components::program_nav::ProgramNav;
use crate::components::set_title;
use crate::components::status::{loaded, Empty, ErrorNotice, RequireSignIn};
use crate::components::text::{flag_label, label, time, StateBadge};
use crate::routes::owner::{load_program, uuid_param};

const PAGE_SIZE: i64 = 50;

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

/// The queue's filters as the owner applied them.
#[derive(Clone, Default, PartialEq)]
struct Filters {
    state: String,
    q: String,
    /// `?ref=` source (issue 15).
    source: String,
    /// `disposable_domain` or `possible_duplicate` (issue 15).
    flag: String,
}

/// One page of the queue. Plain paging is a GET; a search by email fragment is a POST
/// to `…/entries/search`, so the fragment never travels in a URL.
async fn load_page(id: Uuid, f: Filters, cursor: Option<String>) -> Result<EntryPage, ApiError> {
    let some = |v: String| (!v.is_empty()).then_some(v);
    let Filters { state, q, source, flag } = f;
    let (state, source, flag) = (some(state), some(source), some(flag));
    if q.is_empty() {
        let enc = |v: &str| String::from(js_sys::encode_uri_component(v));
        let mut url = format!("/api/owner/programs/{id}/entries?limit={PAGE_SIZE}");
        for (key, value) in [("state", state), ("cursor", cursor), ("ref", source), ("flag", flag)] {
            if let Some(value) = value {
                url.push_str(&format!("&{key}={}", enc(&value)));
            }
        }
        api::get::<EntryPage>(url).await
    } else {
        let search = EntrySearch { state, cursor, limit: Some(PAGE_SIZE), q: Some(q), source, flag };
        api::post::<_, EntryPage>(format!("/api/owner/programs/{id}/entries/search"), &search).await
    }
}

#[component]
fn QueueView(p: Program) -> impl IntoView {
    let id = p.id;
    let state = RwSignal::new(String::new());
    let search = RwSignal::new(String::new());
    let source = RwSignal::new(String::new());
    let flag = RwSignal::new(String::new());
    let applied = RwSignal::new(Filters::default());
    let cursors = Cursors::new();
    let selected = RwSignal::new(BTreeSet::<Uuid>::new());
    let page = LocalResource::new(move || load_page(id, applied.get(), cursors.current()));
    Effect::new(move || {
        cursors.0.track();
        applied.track();
        selected.set(BTreeSet::new());
    });
    let apply = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        cursors.reset();
        applied.set(Filters {
            state: state.get_untracked(),
            q: search.get_untracked().trim().to_owned(),
            source: source.get_untracked().trim().to_owned(),
            flag: flag.get_untracked(),
        });
    };
    let export_error = RwSignal::new(None::<ApiError>);
    let slug = p.slug.clone();
    let export = move |_| {
        let name = format!("{slug}-entries.csv");
        spawn_local(async move {
            match api::get_text(format!("/api/owner/programs/{id}/entries.csv")).await {
                Ok(csv) => export_error.set(save_text(&name, &csv, "text/csv").err().map(|_| ApiError::network())),
                Err(e) => export_error.set(Some(e)),
            }
        });
    };
    let (not_sent, expiring) = (p.counts.not_sent, p.counts.expiring_soon);
    let codes = RwSignal::new((not_sent, expiring));
    let refresh = Callback::new(move |()| {
        page.refetch();
        // The program's counts move with the rows: read them again.
        spawn_local(async move {
            if let Ok(p) = load_program(Some(id)).await {
                codes.set((p.counts.not_sent, p.counts.expiring_soon));
            }
        });
    });
    // Set when a page arrives (reading `page` here would tie it to the outer transition).
    let showing = RwSignal::new(String::new());
    let count = move |pg: &EntryPage| {
        let n = pg.entries.len();
        let more = if pg.next_cursor.is_some() { " (more on the next page)" } else { "" };
        showing.set(format!("Showing {n} {}{more}", if n == 1 { "entry" } else { "entries" }));
    };
    view! {
        <section class="card queue-bar" aria-label="Queue status">
            <p class="result-count" role="status">{move || showing.get()}</p>
            <p>{move || { let (n, e) = codes.get(); format!("{n} {} not marked sent · {e} expiring within 48 hours", if n == 1 { "code" } else { "codes" }) }}</p>
            <p id="export-scope" class="muted small">"The export holds every entry, whatever the filter."</p>
        </section>
        <form class="card filters" method="post" role="search" on:submit=apply>
            <div>
                <label for="queue-state">"State"</label>
                <select id="queue-state" on:change=move |ev| state.set(event_target_value(&ev))>
                    <option value="">"All states"</option>
                    {EntryState::ALL.iter().map(|s| view! { <option value=s.as_str()>{label(s.as_str())}</option> }).collect_view()}
                </select>
            </div>
            <div>
                <label for="queue-flag">"Flag"</label>
                <select id="queue-flag" on:change=move |ev| flag.set(event_target_value(&ev))>
                    <option value="">"Any"</option>
                    {EntryFlag::ALL.iter().map(|f| view! { <option value=f.as_str()>{flag_label(*f)}</option> }).collect_view()}
                </select>
            </div>
            <div>
                <label for="queue-ref">"Source (ref)"</label>
                <input id="queue-ref" type="text" autocomplete="off" spellcheck="false" maxlength="40" size="12"
                    prop:value=move || source.get() on:input=move |ev| source.set(event_target_value(&ev))/>
            </div>
            <div class="grow">
                <label for="queue-search">"Email contains"</label>
                <input id="queue-search" type="search" autocomplete="off" spellcheck="false" maxlength="254"
                    prop:value=move || search.get() on:input=move |ev| search.set(event_target_value(&ev))/>
            </div>
            <button type="submit">"Apply"</button>
            <button type="button" class="secondary" on:click=export aria-describedby="export-scope">"Export CSV"</button>
        </form>
        {move || export_error.get().map(|err| view! { <ErrorNotice err/> })}
        <SelectNext program_id=id done=refresh/>
        <BulkActions program_id=id slug=p.slug.clone() max_days=p.max_invite_days selected done=refresh/>
        <DeclineFlagged program_id=id done=refresh/>
        {loaded(page, move |r| match r {
                    Ok(pg) if { count(&pg); pg.entries.is_empty() } => view! {
                        <Empty><p>"No entries match."</p></Empty>
                        <Pager cursors next=None label="Queue pages"/>
                    }.into_any(),
                    Ok(pg) => view! {
                        <Rows program_id=id entries=pg.entries selected/>
                        <Pager cursors next=pg.next_cursor label="Queue pages"/>
                    }.into_any(),
                    Err(err) => view! { <ErrorNotice err/> }.into_any(),
            })}
    }
}

#[component]
fn Rows(program_id: Uuid, entries: Vec<EntrySummary>, selected: RwSignal<BTreeSet<Uuid>>) -> impl IntoView {
    let ids: Vec<Uuid> = entries.iter().map(|e| e.id).collect();
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
            view! {
                <tr>
                    <td><input type="checkbox" aria-label=check_label prop:checked=move || selected.with(|s| s.contains(&eid))
                        on:change=move |ev| { let on = event_target_checked(&ev); selected.update(|s| toggle(s, eid, on)); }/></td>
                    <td class="email"><A href=format!("/owner/programs/{program_id}/entries/{eid}")>{e.email}</A></td>
                    <td><StateBadge state=e.state.as_str()/>{e.invitation.map(|i| view! {
                        {(!i.sent).then(|| view! { " " <span class="badge badge-unsent">"Not marked sent"</span> })}
                        {soon(&i.expires_at).then(|| view! { " " <span class="badge badge-expiring">"Expires soon"</span> })}
                    })}</td>
                    <td class="nowrap joined">{time(&e.created_at)}</td>
                    <td class="hide-narrow">{format!("v{}", e.notice_version)}</td>
                    <td class="flags">{e.flags.iter().map(|f| view! { <span class="badge flag">{flag_label(*f)}</span> " " }).collect_view()}
                        {e.source.map(|s| view! { <span class="muted small">{format!("ref: {s}")}</span> })}</td>
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
                        <th scope="col">"Joined"</th>
                        <th scope="col" class="hide-narrow">"Notice"</th>
                        <th scope="col">"Flags"</th>
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
    }
}

/// Whether an invitation expires within 48 hours (the API's "expiring soon").
fn soon(expires_at: &str) -> bool {
    js_sys::Date::parse(expires_at) < js_sys::Date::now() + 48.0 * 3_600_000.0
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
