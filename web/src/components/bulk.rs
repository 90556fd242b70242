//! Bulk actions in the queue's toolbar, offered before anything is ticked: "Select next
//! N" (the next waiting entries in queue order, `…/entries/select-bulk`) needs no ticks;
//! select or decline with one reason, or issue invitations to all ticked rows at once (all
//! or none, `…/invitations/bulk`) and download the codes as CSV
//! (`entry_id,email,code,expires_at`) — the only copy of those codes — are disabled, with
//! the reason beside them, until rows are ticked. One bulk issue keeps one request key
//! across retries, and a replay answers without codes. The buttons sit in the queue's
//! sticky toolbar ([`BulkButtons`]); each opens its form in one panel under the toolbar
//! ([`BulkPanel`]), so the part that stays in view is short and always the same height.

use std::collections::BTreeSet;

use leptos::prelude::*;
use leptos::task::spawn_local;
use shared::api::{
    BulkDeliveryRequest, BulkDeliveryResponse, BulkIssueReceipt, BulkIssueRequest, BulkSelectRequest,
    BulkSelectResponse, DeclineRequest, SelectRequest, BULK_ISSUE_MAX, BULK_SELECT_MAX, DECLINE_REASONS,
    SELECT_REASONS,
};
use uuid::Uuid;
use wasm_bindgen::JsCast;

use crate::api::{self, ApiError};
use crate::components::download::save_text;
use crate::components::invitation::CHANNELS;
use crate::components::reason::ReasonForm;
use crate::components::status::{ErrorNotice, Success};
use crate::components::text::{days_from_now, label};

/// What the toolbar's buttons and the panel under the toolbar share.
#[derive(Clone, Copy)]
pub struct Bulk {
    selected: RwSignal<BTreeSet<Uuid>>,
    open: RwSignal<Option<Panel>>,
    /// Whether any row is ticked (changes when the count crosses zero, not on every tick).
    ticked: Memo<bool>,
    report: RwSignal<Option<Result<String, ApiError>>>,
}

impl Bulk {
    pub fn new(selected: RwSignal<BTreeSet<Uuid>>) -> Bulk {
        Bulk {
            selected,
            open: RwSignal::new(None),
            ticked: Memo::new(move |_| selected.with(|s| !s.is_empty())),
            report: RwSignal::new(None),
        }
    }

    /// The open action, while it can act (one that needs ticks closes when none are).
    fn shown(self) -> Option<Panel> {
        self.open.get().filter(|p| *p == Panel::Next || self.ticked.get())
    }
}

/// The toolbar's actions, with one primary: "Select next N" while no row is ticked, "Issue
/// codes" for the ticked rows once some are (the owner's next step either way). Then the
/// page's own controls (`children`, the filters' toggle), and a "More actions" menu with
/// selecting and declining the ticked rows and the page's `more` (clear filters, export).
/// The tick-bound actions are offered before anything is ticked, disabled, with the reason
/// beside them. Opening an action moves focus into its form; Escape closes the menu.
#[component]
pub fn BulkButtons(bulk: Bulk, children: Children, more: Children) -> impl IntoView {
    let count = move || bulk.selected.with(BTreeSet::len);
    let menu = NodeRef::<leptos::html::Details>::new();
    let toggle = move |p: Panel| {
        let opening = bulk.open.get_untracked() != Some(p);
        bulk.open.set(opening.then_some(p));
        if opening {
            request_animation_frame(|| {
                let first = document().query_selector("#bulk-panel input, #bulk-panel select").ok().flatten();
                if let Some(el) = first.and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok()) {
                    let _ = el.focus();
                }
            });
        }
    };
    let primary = move |p: Panel| match p {
        Panel::Next => !bulk.ticked.get(),
        Panel::Issue => bulk.ticked.get(),
        Panel::Select | Panel::Decline => false,
    };
    let button = move |p: Panel| {
        let needs_ticks = p != Panel::Next;
        view! {
            <button type="button" class=move || if primary(p) { "primary" } else { "secondary" } aria-controls="bulk-panel"
                aria-expanded=move || (bulk.shown() == Some(p)).to_string()
                aria-describedby=needs_ticks.then_some("bulk-hint")
                disabled=move || needs_ticks && !bulk.ticked.get()
                on:click=move |_| toggle(p)>
                {p.label()}
            </button>
        }
    };
    let close_menu = move || {
        if let Some(d) = menu.get_untracked() {
            d.set_open(false);
        }
    };
    // A button chosen in the menu closes it (its form opens under the toolbar).
    let chosen = move |ev: leptos::ev::MouseEvent| {
        let on_button =
            ev.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()).is_some_and(|e| e.tag_name() == "BUTTON");
        if on_button {
            close_menu();
        }
    };
    let escape = move |ev: leptos::ev::KeyboardEvent| {
        if ev.key() == "Escape" && menu.get_untracked().is_some_and(|d| d.open()) {
            close_menu();
            if let Some(summary) = menu.get_untracked().and_then(|d| d.query_selector("summary").ok().flatten()) {
                let _ = summary.dyn_into::<web_sys::HtmlElement>().map(|s| s.focus());
            }
        }
    };
    view! {
        <div class="row toolbar-actions" role="group" aria-label="Queue actions">
            {button(Panel::Next)}
            {button(Panel::Issue)}
            {children()}
            <details class="more-menu" node_ref=menu on:keydown=escape>
                <summary class="button secondary">"More actions"</summary>
                <div class="menu" on:click=chosen>
                    {button(Panel::Select)}
                    {button(Panel::Decline)}
                    {more()}
                </div>
            </details>
        </div>
        <p id="bulk-hint" class="muted small" aria-live="polite">{move || match count() {
            0 => "Tick rows to select, decline or issue codes.".to_owned(),
            1 => "1 row ticked.".to_owned(),
            n => format!("{n} rows ticked."),
        }}</p>
    }
}

/// The open action's form, under the toolbar, and what the last action did.
#[component]
pub fn BulkPanel(bulk: Bulk, program_id: Uuid, slug: String, max_days: i32, done: Callback<()>) -> impl IntoView {
    let Bulk { selected, open, report, .. } = bulk;
    let pending = RwSignal::new(false);
    // The entries of the batch just issued, to mark sent together.
    let batch = RwSignal::new(None::<Vec<Uuid>>);
    // An action that went through closes its form (its report stays); one refused keeps
    // it open for another try. Either way the page reads the rows and figures again.
    let refresh = done;
    let done = Callback::new(move |()| {
        open.set(None);
        refresh.run(());
    });
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
            report.set(Some(Err(ApiError::invalid(format!("Choose 1 to {max_days} days.")))));
            return;
        };
        let ids: Vec<Uuid> = selected.get_untracked().into_iter().collect();
        if ids.len() > BULK_ISSUE_MAX {
            report.set(Some(Err(ApiError::invalid(format!(
                "Tick at most {BULK_ISSUE_MAX} entries for one bulk issue."
            )))));
            return;
        }
        let body = match attempt.get_value() {
            Some(a) if a.entry_ids == ids => a,
            _ => BulkIssueRequest { request_key: Uuid::new_v4(), entry_ids: ids, expires_at: days_from_now(d) },
        };
        attempt.set_value(Some(body.clone()));
        let name = format!("{slug}-invitations.csv");
        pending.set(true);
        report.set(None);
        batch.set(None);
        let ids = body.entry_ids.clone();
        spawn_local(async move {
            let result = api::post_text(format!("/api/owner/programs/{program_id}/invitations/bulk"), &body).await;
            pending.set(false);
            if !matches!(&result, Err(e) if e.is_retryable()) {
                attempt.set_value(None);
            }
            if result.is_ok() {
                done.run(())
            } else {
                refresh.run(())
            }
            report.set(Some(match result {
                // A replay of a committed batch answers its metadata, never the codes.
                Ok(text) if serde_json::from_str::<BulkIssueReceipt>(&text).is_ok() => Ok(REPLAYED.to_owned()),
                Ok(csv) => {
                    let saved = save_text(&name, &csv, "text/csv");
                    batch.set(Some(ids));
                    saved.map(|()| ISSUED.to_owned()).map_err(|_| ApiError::network())
                }
                Err(e) if e.status == 409 => Err(e.explained(NOT_ISSUED)),
                Err(e) => Err(e),
            }));
        });
    };
    let issue_form = move || {
        view! {
            <form class="reason-form" method="post" on:submit=issue.clone()>
                <label for="bulk-days">{format!("Invitations valid for (days, 1–{max_days})")}</label>
                <div class="row">
                    <input id="bulk-days" type="number" min="1" max=max_days inputmode="numeric" prop:value=move || days.get() on:input=move |ev| days.set(event_target_value(&ev))/>
                    <button type="submit" disabled=move || pending.get()>"Issue and download codes"</button>
                </div>
                <p class="muted small">"All or nothing: every ticked entry must be selected and a seat must be free for each. The codes are in the downloaded file (entry, email, code, expiry) and are not shown again."</p>
            </form>
        }
    };
    let panel = move || {
        match bulk.shown()? {
        Panel::Next => Some(view! { <SelectNext program_id report done/> }.into_any()),
        Panel::Select => Some(view! {
            <ReasonForm id="bulk-select" legend="Reason for selecting the ticked entries" options=SELECT_REASONS button="Select" pending on_submit=select/>
        }.into_any()),
        Panel::Decline => Some(view! {
            <ReasonForm id="bulk-decline" legend="Reason for declining the ticked entries" options=DECLINE_REASONS button="Decline" pending on_submit=decline class="danger"/>
        }.into_any()),
        Panel::Issue => Some(issue_form().into_any()),
    }
    };
    view! {
        <section id="bulk-panel" class="card toolbar-panel" aria-label="Queue action" hidden=move || bulk.shown().is_none()>
            {panel}
        </section>
        {move || report.get().map(|r| match r {
            Ok(text) => view! { <Success><p>{text}</p></Success> }.into_any(),
            Err(err) => view! { <ErrorNotice err/> }.into_any(),
        })}
        {move || batch.get().map(|ids| view! { <MarkBatchSent program_id ids done/> })}
    }
}

/// The toolbar's actions, each opening its form in the panel.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Panel {
    Next,
    Select,
    Decline,
    Issue,
}

impl Panel {
    fn label(self) -> &'static str {
        match self {
            Panel::Next => "Select next N",
            Panel::Select => "Select ticked",
            Panel::Decline => "Decline ticked",
            Panel::Issue => "Issue codes",
        }
    }
}

/// After a bulk issue: the whole batch marked sent through one channel, in one audited
/// step (`…/invitations/delivery-records`; invitations marked before are left alone).
#[component]
fn MarkBatchSent(program_id: Uuid, ids: Vec<Uuid>, done: Callback<()>) -> impl IntoView {
    let n = ids.len();
    let ids = StoredValue::new(ids);
    let channel = RwSignal::new(String::new());
    let pending = RwSignal::new(false);
    let outcome = RwSignal::new(None::<Result<String, ApiError>>);
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let channel = channel.get_untracked();
        if channel.is_empty() {
            return;
        }
        pending.set(true);
        outcome.set(None);
        spawn_local(async move {
            let body = BulkDeliveryRequest { entry_ids: ids.get_value(), channel, reference: None };
            let path = format!("/api/owner/programs/{program_id}/invitations/delivery-records");
            let result = api::post::<_, BulkDeliveryResponse>(path, &body).await;
            pending.set(false);
            outcome.set(Some(result.map(|r| {
                let marked = format!("{} marked sent.", invitations(r.marked));
                match r.already_marked {
                    0 => marked,
                    a => format!("{marked} {} marked before.", invitations(a)),
                }
            })));
            done.run(());
        });
    };
    view! {
        <section class="card batch-sent" aria-labelledby="batch-heading">
            <h2 id="batch-heading">"Mark this batch sent"</h2>
            {move || match outcome.get() {
                Some(Ok(text)) => view! { <Success><p>{text}</p></Success> }.into_any(),
                other => view! {
                    <form class="form" method="post" on:submit=submit>
                        <p class="muted small">"Once you have sent the codes from the downloaded file, mark them sent: a code can only be redeemed once it is marked sent."</p>
                        <label for="batch-channel">"Sent through"</label>
                        <select id="batch-channel" on:change=move |ev| channel.set(event_target_value(&ev)) prop:value=move || channel.get()>
                            <option value="">"Choose a channel…"</option>
                            {CHANNELS.iter().map(|c| view! { <option value=*c>{label(c)}</option> }).collect_view()}
                        </select>
                        <button type="submit" disabled=move || pending.get() || channel.with(String::is_empty)>{format!("Mark all {n} sent")}</button>
                        {other.and_then(Result::err).map(|err| view! { <ErrorNotice err/> })}
                    </form>
                }.into_any(),
            }}
        </section>
    }
}

fn invitations(n: i64) -> String {
    if n == 1 {
        "1 invitation".to_owned()
    } else {
        format!("{n} invitations")
    }
}

const ISSUED: &str = "Invitations issued. The downloaded file holds the codes; it is the only copy. Once you have sent them, mark the batch sent below.";
const REPLAYED: &str = "These invitations were already issued by an earlier attempt. Their codes were in that download and cannot be shown again; revoke and reissue any that were lost.";
const NOT_ISSUED: &str = "Nothing was issued: every ticked entry must be selected (not waiting, invited or final), and the seat cap must leave a seat for each.";

/// Selects the next waiting entries in queue order, oldest first, with one reason.
#[component]
fn SelectNext(
    program_id: Uuid,
    report: RwSignal<Option<Result<String, ApiError>>>,
    done: Callback<()>,
) -> impl IntoView {
    let count = RwSignal::new("10".to_owned());
    let reason = RwSignal::new(String::new());
    let pending = RwSignal::new(false);
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let n = count.get_untracked().trim().parse::<i32>().ok().filter(|n| (1..=BULK_SELECT_MAX).contains(n));
        let (Some(count), reason_code) = (n, reason.get_untracked()) else {
            report.set(Some(Err(ApiError::invalid(format!("Choose 1 to {BULK_SELECT_MAX} entries.")))));
            return;
        };
        if reason_code.is_empty() {
            return;
        }
        pending.set(true);
        report.set(None);
        spawn_local(async move {
            let body = BulkSelectRequest { count, reason_code };
            let path = format!("/api/owner/programs/{program_id}/entries/select-bulk");
            let result = api::post::<_, BulkSelectResponse>(path, &body).await;
            pending.set(false);
            if result.is_ok() {
                done.run(());
            }
            report.set(Some(result.map(|r| match r.selected.len() {
                0 => "Nobody is waiting; nothing changed.".to_owned(),
                1 => "1 entry selected.".to_owned(),
                n => format!("{n} entries selected."),
            })));
        });
    };
    view! {
        <div class="select-next">
            <form class="form" method="post" on:submit=submit>
                <p class="muted small">"Selects waiting entries in queue order, oldest first, under one reason."</p>
                <div class="fields">
                    <div>
                        <label for="next-count">{format!("How many (1–{BULK_SELECT_MAX})")}</label>
                        <input id="next-count" type="number" min="1" max=BULK_SELECT_MAX inputmode="numeric"
                            prop:value=move || count.get() on:input=move |ev| count.set(event_target_value(&ev))/>
                    </div>
                    <div>
                        <label for="next-reason">"Reason"</label>
                        <select id="next-reason" on:change=move |ev| reason.set(event_target_value(&ev)) prop:value=move || reason.get()>
                            <option value="">"Choose a reason…"</option>
                            {SELECT_REASONS.iter().map(|o| view! { <option value=*o>{label(o)}</option> }).collect_view()}
                        </select>
                    </div>
                </div>
                <button type="submit" disabled=move || pending.get() || reason.with(String::is_empty)>"Select"</button>
            </form>
        </div>
    }
}
