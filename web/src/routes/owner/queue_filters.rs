//! The queue's filters (`/owner/programs/:id/queue`): what the owner applied, how a page
//! of it is loaded (a GET, or a POST when it holds an email fragment, which never goes
//! into a URL), how many entries match where the program's figures say, and the form.

use leptos::prelude::*;
use shared::api::{EntryFlag, EntryPage, EntrySearch, ProgramCounts};
use shared::queue::InvitationFilter;
use shared::{EntryState, SourceRef};
use uuid::Uuid;

use crate::api::{self, ApiError};
use crate::components::text::{flag_label, label};

pub const PAGE_SIZE: i64 = 50;

/// The queue's filters as the owner applied them.
#[derive(Clone, Default, PartialEq)]
pub struct Filters {
    pub state: String,
    pub q: String,
    /// `?ref=` source (issue 15).
    pub source: String,
    /// `disposable_domain` or `possible_duplicate` (issue 15).
    pub flag: String,
    /// `unsent` or `expiring` (issue 19).
    pub invitation: String,
    /// An answer to a choice question, as `id=choice` (issue 31).
    pub answer: String,
    /// `true` (joined with a verified account) or `false` (issue 31).
    pub verified: String,
}

impl Filters {
    /// The filters a GET may carry (all but the email fragment), as a query string.
    pub fn query(&self) -> String {
        let enc = |v: &str| String::from(js_sys::encode_uri_component(v));
        let (question, choice) = self.answer_parts();
        let (question, choice) = (question.to_owned(), choice.to_owned());
        [
            ("state", &self.state),
            ("ref", &self.source),
            ("flag", &self.flag),
            ("invitation", &self.invitation),
            ("question", &question),
            ("choice", &choice),
            ("verified", &self.verified),
        ]
        .into_iter()
        .filter(|(_, v)| !v.is_empty())
        .map(|(k, v)| format!("{k}={}", enc(v)))
        .collect::<Vec<_>>()
        .join("&")
    }

    /// The answer filter as (question id, choice); empty when none.
    pub fn answer_parts(&self) -> (&str, &str) {
        self.answer.split_once('=').unwrap_or_default()
    }

    /// How many entries match, when the program's own figures say (no count is run for
    /// it): the unfiltered queue, a state the figures count, or an invitation filter.
    pub fn known_total(&self, c: &ProgramCounts) -> Option<i64> {
        if !(self.q.is_empty()
            && self.source.is_empty()
            && self.flag.is_empty()
            && self.answer.is_empty()
            && self.verified.is_empty())
        {
            return None;
        }
        match (self.state.as_str(), self.invitation.as_str()) {
            ("", "") => Some(c.entries),
            ("waiting", "") => Some(c.waiting),
            ("selected", "") => Some(c.selected),
            ("active", "") => Some(c.active),
            ("" | "invited", "unsent") => Some(c.not_sent),
            ("" | "invited", "expiring") => Some(c.expiring_soon),
            _ => None,
        }
    }

    /// How many filters are applied (the email search counts as one).
    pub fn active(&self) -> usize {
        [&self.state, &self.q, &self.source, &self.flag, &self.invitation, &self.answer, &self.verified]
            .into_iter()
            .filter(|v| !v.is_empty())
            .count()
    }

    /// What the export holds under these filters, in words.
    pub fn export_scope(&self) -> &'static str {
        match (self.query().is_empty(), self.q.is_empty()) {
            (true, true) => "Export: every entry.",
            (true, false) => "Export: every entry (it ignores the email search).",
            (false, true) => "Export: the filtered entries.",
            (false, false) => "Export: the filtered entries (it ignores the email search).",
        }
    }
}

/// One page of the queue. Plain paging is a GET; a search by email fragment is a POST
/// to `…/entries/search`, so the fragment never travels in a URL.
pub async fn load_page(id: Uuid, f: Filters, cursor: Option<String>) -> Result<EntryPage, ApiError> {
    if f.q.is_empty() {
        let mut url = format!("/api/owner/programs/{id}/entries?limit={PAGE_SIZE}");
        for part in
            [f.query(), cursor.map(|c| format!("cursor={}", js_sys::encode_uri_component(&c))).unwrap_or_default()]
        {
            if !part.is_empty() {
                url.push('&');
                url.push_str(&part);
            }
        }
        api::get::<EntryPage>(url).await
    } else {
        let some = |v: String| (!v.is_empty()).then_some(v);
        let (question, choice) = f.answer_parts();
        let (question, choice) = (some(question.to_owned()), some(choice.to_owned()));
        let verified = f.verified.parse::<bool>().ok();
        let Filters { state, q, source, flag, invitation, .. } = f;
        let (state, source, flag, invitation) = (some(state), some(source), some(flag), some(invitation));
        let search = EntrySearch {
            state,
            cursor,
            limit: Some(PAGE_SIZE),
            q: Some(q),
            source,
            flag,
            invitation,
            question,
            choice,
            verified,
        };
        api::post::<_, EntryPage>(format!("/api/owner/programs/{id}/entries/search"), &search).await
    }
}

/// "3 entries", "Showing 51–100 of 1234 entries", or "Showing 1–50 · more follow" where
/// no figure says how many match (the queue never counts its rows per page).
pub fn result_count(total: Option<i64>, page: usize, shown: usize, more: bool) -> String {
    let (from, to) = (page * PAGE_SIZE as usize + 1, page * PAGE_SIZE as usize + shown);
    let entries = |n: usize| if n == 1 { "1 entry".to_owned() } else { format!("{n} entries") };
    // Without a next page the rows themselves say how many there are; a figure read a
    // moment earlier never says fewer than are shown.
    let total = if more { total.map(|n| usize::try_from(n).unwrap_or(0).max(to)) } else { Some(to) };
    match total {
        Some(n) if page == 0 && !more => entries(n),
        _ if shown == 0 => "No entries on this page".to_owned(),
        Some(n) => format!("Showing {from}–{to} of {}", entries(n)),
        None => format!("Showing {from}–{to} · more follow"),
    }
}

/// The filter form: its fields show `form`; submitting hands the trimmed filters to
/// `apply`. A source that is not one (an address typed there, say) never reaches a URL.
#[component]
pub fn FilterForm(
    form: RwSignal<Filters>,
    apply: Callback<Filters>,
    /// The current notice's choice questions as (label, `id=choice`, choice), for the
    /// answer filter (issue 31).
    #[prop(optional)]
    choices: Vec<(String, String, String)>,
) -> impl IntoView {
    let answer_filter = (!choices.is_empty()).then(|| {
        view! {
            <div>
                <label for="queue-answer">"Answer"</label>
                <select id="queue-answer" prop:value=move || form.with(|f| f.answer.clone())
                    on:change=move |ev| form.update(|f| f.answer = event_target_value(&ev))>
                    <option value="">"Any"</option>
                    {choices.into_iter().map(|(label, value, choice)| view! { <option value=value>{format!("{label}: {choice}")}</option> }).collect_view()}
                </select>
            </div>
        }
    });
    let source_error = RwSignal::new(false);
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let f = form.get_untracked();
        let source = f.source.trim().to_owned();
        source_error.set(!source.is_empty() && SourceRef::parse(&source).is_none());
        if !source_error.get_untracked() {
            apply.run(Filters { q: f.q.trim().to_owned(), source, ..f });
        }
    };
    view! {
        <form class="card filters" method="post" role="search" on:submit=submit>
            <div>
                <label for="queue-state">"State"</label>
                <select id="queue-state" on:change=move |ev| form.update(|f| f.state = event_target_value(&ev))>
                    <option value="" prop:selected=move || form.with(|f| f.state.is_empty())>"All states"</option>
                    {EntryState::ALL.iter().map(|s| view! {
                        <option value=s.as_str() prop:selected=move || form.with(|f| f.state == s.as_str())>{label(s.as_str())}</option>
                    }).collect_view()}
                </select>
            </div>
            <div>
                <label for="queue-invitation">"Code"</label>
                <select id="queue-invitation" on:change=move |ev| form.update(|f| f.invitation = event_target_value(&ev))>
                    <option value="" prop:selected=move || form.with(|f| f.invitation.is_empty())>"Any"</option>
                    {InvitationFilter::ALL.iter().map(|i| view! {
                        <option value=i.as_str() prop:selected=move || form.with(|f| f.invitation == i.as_str())>{invitation_label(*i)}</option>
                    }).collect_view()}
                </select>
            </div>
            <div>
                <label for="queue-flag">"Flag"</label>
                <select id="queue-flag" on:change=move |ev| form.update(|f| f.flag = event_target_value(&ev))>
                    <option value="" prop:selected=move || form.with(|f| f.flag.is_empty())>"Any"</option>
                    {EntryFlag::ALL.iter().map(|g| view! {
                        <option value=g.as_str() prop:selected=move || form.with(|f| f.flag == g.as_str())>{flag_label(*g)}</option>
                    }).collect_view()}
                </select>
            </div>
            <div>
                <label for="queue-ref">"Source (ref)"</label>
                <input id="queue-ref" type="text" autocomplete="off" spellcheck="false" maxlength="40" size="12"
                    aria-invalid=move || source_error.get().to_string() aria-describedby="queue-ref-error"
                    prop:value=move || form.with(|f| f.source.clone()) on:input=move |ev| form.update(|f| f.source = event_target_value(&ev))/>
                <p id="queue-ref-error" class="field-error small" role="alert" hidden=move || !source_error.get()>
                    "A source is 1–40 characters: a–z, 0–9, _ and -."
                </p>
            </div>
            {answer_filter}
            <div>
                <label for="queue-verified">"Joined"</label>
                <select id="queue-verified" prop:value=move || form.with(|f| f.verified.clone())
                    on:change=move |ev| form.update(|f| f.verified = event_target_value(&ev))>
                    <option value="">"Any way"</option>
                    <option value="true">"With a verified account"</option>
                    <option value="false">"With a typed address"</option>
                </select>
            </div>
            <div class="grow">
                <label for="queue-search">"Email contains"</label>
                <input id="queue-search" type="search" autocomplete="off" spellcheck="false" maxlength="254"
                    prop:value=move || form.with(|f| f.q.clone()) on:input=move |ev| form.update(|f| f.q = event_target_value(&ev))/>
            </div>
            <button type="submit">"Apply"</button>
        </form>
    }
}

fn invitation_label(f: InvitationFilter) -> &'static str {
    match f {
        InvitationFilter::Unsent => "Not marked sent",
        InvitationFilter::Expiring => "Expiring within 48 h",
    }
}
