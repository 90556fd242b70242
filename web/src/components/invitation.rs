//! Invitations on an entry's page: the issue form, the one-time code panel and the
//! delivery-record form. The code lives only in the page's memory: it is never stored,
//! logged or put in a URL, and leaving or reloading the page loses it for good. Issue and
//! delivery each keep one request key across retries of the same attempt.

use leptos::html;
use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::components::A;
use shared::api::{DeliveryRecordRequest, Invitation, IssueInvitationRequest, IssuedInvitation};
use shared::ErrorCode;
use uuid::Uuid;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

use crate::api::{self, ApiError};
use crate::components::confirm::ConfirmButton;
use crate::components::copy::copy_text;
use crate::components::status::{ErrorNotice, Success};
use crate::components::text::{days_from_now, label, time};

/// A code exactly as the one answer that created it carried it.
#[derive(Clone)]
pub struct OneTimeCode {
    pub invitation: Invitation,
    pub code: String,
    /// The entry's address and the program's slug, for the invitation message.
    pub email: String,
    pub slug: String,
}

/// Longest delivery reference the API accepts (characters).
const REFERENCE_MAX: usize = 160;

/// Delivery channels offered to the owner (the API stores the chosen word).
pub const CHANNELS: &[&str] = &["email", "text_message", "messaging_app", "phone", "in_person", "other"];

#[component]
pub fn IssueForm(
    program_id: Uuid,
    entry_id: Uuid,
    max_days: i32,
    button: &'static str,
    on_issued: Callback<IssuedInvitation>,
) -> impl IntoView {
    let days = RwSignal::new(max_days.clamp(1, 7).to_string());
    let attempt = StoredValue::new(None::<IssueInvitationRequest>);
    let pending = RwSignal::new(false);
    let failure = RwSignal::new(None::<ApiError>);
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let Some(d) =
            days.get_untracked().trim().parse::<u32>().ok().filter(|d| *d >= 1 && i64::from(*d) <= i64::from(max_days))
        else {
            failure.set(Some(ApiError::invalid(format!("Choose 1 to {max_days} days."))));
            return;
        };
        let body = attempt
            .get_value()
            .unwrap_or_else(|| IssueInvitationRequest { request_key: Uuid::new_v4(), expires_at: days_from_now(d) });
        attempt.set_value(Some(body.clone()));
        pending.set(true);
        failure.set(None);
        spawn_local(async move {
            let path = format!("/api/owner/programs/{program_id}/entries/{entry_id}/invitations");
            let result = api::post::<_, IssuedInvitation>(path, &body).await;
            pending.set(false);
            match result {
                Ok(issued) => {
                    attempt.set_value(None);
                    on_issued.run(issued);
                }
                Err(e) => {
                    if !e.is_retryable() {
                        attempt.set_value(None);
                    }
                    let message = match (e.status, e.api_code()) {
                        (409, Some(ErrorCode::NoSeatAvailable)) => Some("No invitation was issued: every seat is taken (active grants plus unexpired invitations reach the seat cap)."),
                        (409, Some(ErrorCode::ExpiryOutOfRange)) => Some("No invitation was issued: the expiry must be in the future and within the program's longest invitation."),
                        (409, _) => Some("No invitation was issued: the entry must be selected, without a live invitation."),
                        _ => None,
                    };
                    let e = match message {
                        Some(m) => e.explained(m),
                        None => e,
                    };
                    failure.set(Some(e));
                }
            }
        });
    };
    let id = format!("issue-days-{entry_id}");
    view! {
        <form class="reason-form" method="post" on:submit=submit>
            <label for=id.clone()>{format!("Invitation valid for (days, 1–{max_days})")}</label>
            <div class="row">
                <input id=id type="number" min="1" max=max_days inputmode="numeric" prop:value=move || days.get()
                    on:input=move |ev| { days.set(event_target_value(&ev)); attempt.set_value(None); }/>
                <button type="submit" disabled=move || pending.get()>{move || if pending.get() { "Issuing…" } else { button }}</button>
            </div>
        </form>
        {move || failure.get().map(|err| view! { <ErrorNotice err/> })}
    }
}

/// The one-time code, with "Copy code and mark sent" as its primary action. Until the
/// code is marked sent, leaving asks first (a code not marked sent cannot be redeemed, and
/// this panel is the only time it is shown): "Done — hide the code" through a confirmation
/// dialog, a link to another page through the browser's question. A reload does not ask
/// (the pages then say the code is not marked sent, with the way to record it).
#[component]
pub fn CodePanel(code: OneTimeCode, on_close: Callback<()>, on_recorded: Callback<()>) -> impl IntoView {
    let panel = NodeRef::<html::Section>::new();
    Effect::new(move || {
        if let Some(el) = panel.get() {
            let _ = el.focus();
        }
    });
    let recorded = RwSignal::new(false);
    guard_leaving(true);
    on_cleanup(|| guard_leaving(false));
    let on_recorded = Callback::new(move |()| {
        recorded.set(true);
        guard_leaving(false);
        on_recorded.run(());
    });
    let expires = time(&code.invitation.expires_at);
    let select_all = |ev: leptos::ev::FocusEvent| event_target::<web_sys::HtmlTextAreaElement>(&ev).select();
    let copy = Copyable { message: message(&code, &expires), code: code.code.clone() };
    let done = move || {
        if recorded.get() {
            view! { <button type="button" class="secondary" on:click=move |_| on_close.run(())>"Done — hide the code"</button> }
                .into_any()
        } else {
            view! {
                <ConfirmButton label="Done — hide the code" question=LEAVE_QUESTION.to_owned()
                    confirm_label="Hide it without marking sent" pending=false on_confirm=on_close/>
            }
            .into_any()
        }
    };
    view! {
        <section id="code-panel" class="card code-panel" tabindex="-1" node_ref=panel aria-labelledby="code-heading">
            <h2 id="code-heading">{format!("Invitation code for {}", code.email)}</h2>
            <div class="alert alert-warn">
                <p><strong>"This code will not be shown again."</strong>
                " Send it to the applicant through your own channel: Vestibule does not send it and keeps no readable copy. Choose how you send it, then copy it: copying marks it sent, and only a code marked sent can be redeemed."</p>
            </div>
            <label for="invite-code">"One-time invitation code"</label>
            <textarea id="invite-code" class="mono copy-value" rows="2" readonly autocomplete="off" spellcheck="false"
                on:focus=select_all>{code.code.clone()}</textarea>
            <p class="small">"To read it aloud, in groups of four: " <span class="mono code-groups">{groups(&code.code)}</span></p>
            <p class="muted small">{format!("Expires {expires}")}</p>
            <DeliveryForm invitation_id=code.invitation.id copy on_recorded/>
            {done}
        </section>
    }
}

/// What leaving a code not marked sent would mean.
pub const LEAVE_QUESTION: &str = "This code is not marked sent: it will not work until you record that you sent it, and it will not be shown again. Leave it anyway?";

/// The sentence an entry with a code not marked sent shows wherever the owner looks.
pub const NOT_MARKED_SENT: &str = "Not marked sent — this code will not work until you record that you sent it.";

/// A program's codes not marked sent, in words.
pub fn not_marked_sent(n: i64) -> String {
    match n {
        1 => "1 code not marked sent — this code will not work until you record that you sent it.".to_owned(),
        n => format!("{n} codes not marked sent — these codes will not work until you record that you sent them."),
    }
}

/// On the dashboard and a program's overview: how many codes are not marked sent, and the
/// way to record them (the queue, filtered to them, where each row has "Record sent").
#[component]
pub fn UnsentNotice(program_id: Uuid, slug: String, n: i64) -> impl IntoView {
    // The link's name adds the program's, so links that read the same go to one place.
    let text = if n == 1 { "Record that you sent it" } else { "Record that you sent them" };
    view! {
        <div class="alert alert-warn unsent-notice">
            <p><strong>{not_marked_sent(n)}</strong></p>
            <A href=format!("/owner/programs/{program_id}/queue?invitation=unsent")
                attr:aria-label=format!("{text} in {slug}")>{text}</A>
        </div>
    }
}

thread_local! {
    /// Whether a code not marked sent is on screen; the listeners below read it.
    static UNMARKED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    static LISTENING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Marks whether a code not marked sent is on screen. The first time, it installs a
/// listener for the app's lifetime: a click on a link asks before the router sees it (the
/// capture phase).
fn guard_leaving(on: bool) {
    UNMARKED.set(on);
    if !on || LISTENING.replace(true) {
        return;
    }
    let click = Closure::<dyn Fn(web_sys::Event)>::new(|ev: web_sys::Event| {
        if !UNMARKED.get() {
            return;
        }
        let link = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .and_then(|e| e.closest("a[href]").ok().flatten());
        if link.is_some() && !window().confirm_with_message(LEAVE_QUESTION).unwrap_or(true) {
            ev.prevent_default();
            ev.stop_immediate_propagation();
        }
    });
    let _ = document().add_event_listener_with_callback_and_bool("click", click.as_ref().unchecked_ref(), true);
    click.forget();
}

/// What the owner can copy from the code panel: the code alone, or a short invitation
/// message with the code and the `/redeem` address (the code never goes into a URL).
#[derive(Clone)]
pub struct Copyable {
    pub code: String,
    pub message: String,
}

/// `abcdefghij` → `abcd efgh ij`.
pub fn groups(code: &str) -> String {
    code.as_bytes().chunks(4).map(String::from_utf8_lossy).collect::<Vec<_>>().join(" ")
}

fn message(code: &OneTimeCode, expires: &str) -> String {
    let origin = window().location().origin().unwrap_or_default();
    format!(
        "You are invited to early access to {slug}.\n\nSign in at {origin}/redeem with {email} (the code works only for this address) and paste this code:\n\n{c}\n\nIt works once and expires {expires}.",
        slug = code.slug,
        email = code.email,
        c = code.code,
    )
}

/// Marks an invitation sent (a delivery record: the channel and an optional reference).
/// Given something to copy, the one action is "Copy code and mark sent": the copy and the
/// record together, so a code is never sent without being marked (it could not be
/// redeemed) nor marked without having been copied. When the browser refuses the copy,
/// the owner copies by hand and marks it sent with a plain button.
#[component]
pub fn DeliveryForm(
    invitation_id: Uuid,
    #[prop(optional)] copy: Option<Copyable>,
    on_recorded: Callback<()>,
) -> impl IntoView {
    let channel = RwSignal::new(String::new());
    let reference = RwSignal::new(String::new());
    let attempt = StoredValue::new(None::<DeliveryRecordRequest>);
    let pending = RwSignal::new(false);
    let outcome = RwSignal::new(None::<Result<(), ApiError>>);
    // What was copied ("code", "message"), or that the browser refused the copy.
    let copied = RwSignal::new(None::<Result<&'static str, ()>>);
    let record = move || {
        let (ch, reference) = (channel.get_untracked(), reference.get_untracked().trim().to_owned());
        if ch.is_empty() {
            return;
        }
        let reference = (!reference.is_empty()).then_some(reference);
        let body = match attempt.get_value() {
            Some(a) if a.channel == ch && a.reference == reference => a,
            _ => DeliveryRecordRequest { request_key: Uuid::new_v4(), channel: ch, reference },
        };
        attempt.set_value(Some(body.clone()));
        pending.set(true);
        outcome.set(None);
        spawn_local(async move {
            let path = format!("/api/owner/invitations/{invitation_id}/delivery-record");
            let result = api::post::<_, Invitation>(path, &body).await.map(drop);
            pending.set(false);
            if !matches!(&result, Err(e) if e.is_retryable()) {
                attempt.set_value(None);
            }
            let recorded = result.is_ok();
            outcome.set(Some(result.map_err(|e| match (e.status, e.api_code()) {
                (409, Some(ErrorCode::DeliveryAlreadyRecorded)) => {
                    e.explained("This invitation is already marked sent.")
                }
                (409, _) => e.explained("This invitation is no longer open: it was revoked, redeemed or has expired."),
                (400, Some(ErrorCode::DeliveryRecordNamesASecret)) => e.explained(
                    "Leave the email address and the code out of the reference; note only how and where you sent it.",
                ),
                _ => e,
            })));
            if recorded {
                on_recorded.run(());
            }
        });
    };
    let copy_and_record = move |what: &'static str, text: String| {
        if channel.with_untracked(String::is_empty) {
            return;
        }
        spawn_local(async move {
            if copy_text(&text).await {
                copied.set(Some(Ok(what)));
                record();
            } else {
                copied.set(Some(Err(())));
            }
        });
    };
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        record();
    };
    let no_channel = move || channel.with(String::is_empty);
    let (ch_id, ref_id) = (format!("channel-{invitation_id}"), format!("reference-{invitation_id}"));
    let copy = StoredValue::new(copy);
    let buttons = move || {
        match copy.get_value().filter(|_| !matches!(copied.get(), Some(Err(())))) {
        Some(Copyable { code, message }) => view! {
            <div class="row">
                <button type="button" class="primary" disabled=move || pending.get() || no_channel() aria-describedby="send-why"
                    on:click=move |_| copy_and_record("code", code.clone())>"Copy code and mark sent"</button>
                <button type="button" class="secondary" disabled=move || pending.get() || no_channel() aria-describedby="send-why"
                    on:click=move |_| copy_and_record("message", message.clone())>"Copy invitation message and mark sent"</button>
            </div>
            <p id="send-why" class="muted small">{move || if no_channel() { "Choose how you send it first." } else { "The invitation message holds the code and the address of the redeem page, for pasting into an email or a chat." }}</p>
        }.into_any(),
        None => view! {
            <button type="submit" class="primary" disabled=move || pending.get() || no_channel()>"Mark sent"</button>
        }.into_any(),
    }
    };
    view! {
        {move || match outcome.get() {
            Some(Ok(())) => view! {
                <Success><p>{match copied.get_untracked() {
                    Some(Ok("message")) => "Invitation message copied and marked sent. The code can now be redeemed.",
                    Some(Ok(_)) => "Code copied and marked sent. The code can now be redeemed.",
                    _ => "Marked sent. The code can now be redeemed.",
                }}</p></Success>
            }.into_any(),
            other => view! {
                <form class="form delivery" method="post" on:submit=submit>
                    <p class="muted small">"A code can only be redeemed once it is marked sent."</p>
                    <label for=ch_id.clone()>"Sent through"</label>
                    <select id=ch_id.clone() on:change=move |ev| channel.set(event_target_value(&ev)) prop:value=move || channel.get()>
                        <option value="">"Choose a channel…"</option>
                        {CHANNELS.iter().map(|c| view! { <option value=*c>{label(c)}</option> }).collect_view()}
                    </select>
                    <label for=ref_id.clone()>"Your reference (optional)"</label>
                    <input id=ref_id.clone() type="text" maxlength=REFERENCE_MAX autocomplete="off" prop:value=move || reference.get()
                        on:input=move |ev| reference.set(event_target_value(&ev))/>
                    <p class="muted small">"For your own records, such as a ticket number. Never paste the code here."</p>
                    {move || matches!(copied.get(), Some(Err(()))).then(|| view! {
                        <p class="alert alert-warn" role="alert">"The browser did not let the page copy. Select the code above, copy it by hand and send it, then mark it sent."</p>
                    })}
                    {buttons}
                    {other.and_then(Result::err).map(|err| view! { <ErrorNotice err/> })}
                </form>
            }.into_any(),
        }}
    }
}
