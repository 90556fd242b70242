//! `/redeem`: paste an invitation code or a cohort code. The code travels only in a POST
//! body; it is never put in a URL, stored or logged, and the field is cleared once it is
//! used. Every kind of refusal gets the same generic text, as the API gives the same 404
//! for all of them. A cohort code first answers with the program's notice: the
//! [`NoticeStep`] shows it with the box to tick, then sends the code again with it.

use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::components::A;
use leptos_router::hooks::use_navigate;
use shared::api::RedeemRequest;
use shared::cohort::{canonical_code, RedeemNoticeStep, RedeemReply};

use crate::api::{self, ApiError};
use crate::auth::{self, use_session};
use crate::components::set_title;
use crate::components::status::{Arrived, ErrorNotice, RequireSignIn, Warning};
use crate::routes::redeem_notice::NoticeStep;

#[component]
pub fn Redeem() -> impl IntoView {
    set_title("Redeem a code");
    view! {
        <h1>"Redeem an invitation code"</h1>
        <RequireSignIn why=SIGN_IN_AS><RedeemForm/></RequireSignIn>
    }
}

/// Signed out: which account to sign in with.
const SIGN_IN_AS: &str =
    "Sign in with the account of the email address the invitation was sent to: the code works only for that address.";

#[derive(Clone)]
enum Outcome {
    Redeemed(String),
    /// A cohort code: accept this notice first (the code is kept for the second step).
    Notice(RedeemNoticeStep, String),
    Refused,
    Busy,
    Failed(ApiError),
}

/// The code's shape: 43 characters of unpadded base64url (32 bytes, an invitation), or
/// a cohort code (16 characters of Crockford base32, dashes and case as typed).
fn well_formed(code: &str) -> bool {
    let invitation = code.len() == 43 && code.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    invitation || canonical_code(code).is_some()
}

#[component]
fn RedeemForm() -> impl IntoView {
    let code = RwSignal::new(String::new());
    let pending = RwSignal::new(false);
    let outcome = RwSignal::new(None::<Outcome>);
    let shape_problem = move || code.with(|c| !c.trim().is_empty() && !well_formed(c.trim()));
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let value = code.get_untracked().trim().to_owned();
        if !well_formed(&value) || pending.get_untracked() {
            return;
        }
        pending.set(true);
        outcome.set(None);
        spawn_local(async move {
            let result =
                api::post::<_, RedeemReply>("/api/me/invitations/redeem", &RedeemRequest::code(value.clone())).await;
            pending.set(false);
            outcome.set(Some(match result {
                Ok(RedeemReply::NoticeRequired(step)) => Outcome::Notice(step, value),
                Ok(r) => {
                    code.set(String::new());
                    Outcome::Redeemed(r.program_slug().to_owned())
                }
                Err(e) if matches!(e.status, 400 | 404) => Outcome::Refused,
                Err(e) if e.status == 429 => Outcome::Busy,
                Err(e) => Outcome::Failed(e),
            }));
        });
    };
    view! {
        <form class="card form" method="post" novalidate on:submit=submit>
            <p>"Paste the code the program's owner sent you. An invitation code works once, and only for the email address it was sent to: that address must be verified on the account you are signed in with. A cohort code (like K7QF-2MXP-9TRD-A4HW) lets you join a program you are not yet on the list of."</p>
            <label for="redeem-code">"Code"</label>
            <input id="redeem-code" class="mono" type="text" autocomplete="off" autocapitalize="off" spellcheck="false"
                maxlength="64" prop:value=move || code.get() on:input=move |ev| code.set(event_target_value(&ev))
                aria-invalid=move || shape_problem().to_string() aria-describedby="redeem-code-problem"/>
            <p id="redeem-code-problem" class="field-error" aria-live="polite">
                {move || shape_problem().then_some("An invitation code is 43 characters of letters, digits, - and _; a cohort code is 16 letters and digits in groups of four. Check that you copied all of it.")}
            </p>
            <button type="submit" disabled=move || pending.get() || !code.with(|c| well_formed(c.trim()))>
                {move || if pending.get() { "Checking…" } else { "Redeem" }}
            </button>
            // Below the field: most people are signed in with the right account.
            <SwitchAccount/>
        </form>
        {move || outcome.get().map(|o| match o {
            Outcome::Redeemed(slug) => view! {
                <Arrived id="redeemed-heading" heading="You're in">
                    <p>{format!("Your early access to {slug} is active.")}</p>
                    <p><A href=format!("/early-access/{slug}") attr:class="button">"Open early access"</A></p>
                </Arrived>
            }.into_any(),
            Outcome::Notice(step, typed) => {
                let done = Callback::new(move |o: Option<String>| {
                    code.set(String::new());
                    outcome.set(Some(o.map_or(Outcome::Refused, Outcome::Redeemed)));
                });
                view! { <NoticeStep step code=typed done/> }.into_any()
            }
            Outcome::Refused => view! {
                <Warning><p>"This code cannot be used. Check that you copied it exactly. If it still does not work, ask the person who sent it for a new one."</p></Warning>
            }.into_any(),
            Outcome::Busy => view! { <Warning><p>"Too many attempts. Please wait a few minutes before trying again."</p></Warning> }.into_any(),
            Outcome::Failed(err) => view! { <ErrorNotice err/> }.into_any(),
        })}
    }
}

/// Who is signed in, and a way to sign in as someone else when the code went to another
/// address (back to this page afterwards).
#[component]
fn SwitchAccount() -> impl IntoView {
    let session = use_session();
    let navigate = use_navigate();
    let switch = move |_| {
        let navigate = navigate.clone();
        spawn_local(async move {
            auth::sign_out().await;
            navigate("/sign-in?next=/redeem", Default::default());
        });
    };
    view! {
        <p class="row switch-account">
            <span>{move || match session.email.get() {
                Some(e) => format!("Signed in as {e}. The code works only for the address it was sent to; if that is another address, sign in with it."),
                None => "The code works only for the address it was sent to; if that is another address than this account's, sign in with it.".to_owned(),
            }}</span>
            <button type="button" class="secondary" on:click=switch>"Use a different account"</button>
        </p>
    }
}
