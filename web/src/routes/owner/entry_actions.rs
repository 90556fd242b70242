//! The decisions an owner may take on one entry, offered by its state: select, decline,
//! withdraw (each with a controlled reason), issue or reissue an invitation, revoke an
//! issued invitation, revoke an active grant. The API decides; this only avoids offering
//! what cannot succeed.

use leptos::prelude::*;
use shared::api::{
    DeclineRequest, EntryDetail, IssuedInvitation, OwnerWithdrawRequest, Program, SelectRequest, DECLINE_REASONS,
    SELECT_REASONS, WITHDRAW_BASES,
};
use shared::trust::{EraseRequest, ERASE_REASONS};
use shared::{EntryActions, InvitationState, OpenInvitation};

use crate::api::ApiError;
use crate::components::confirm::ConfirmButton;
use crate::components::invitation::IssueForm;
use crate::components::reason::ReasonForm;
use crate::components::text::is_past;
use crate::routes::owner::entry::act;

/// The outcome of the last action on the page.
pub type Feedback = RwSignal<Option<Result<String, ApiError>>>;

#[component]
pub fn Actions(
    e: EntryDetail,
    p: Program,
    feedback: Feedback,
    reload: Callback<()>,
    on_issued: Callback<IssuedInvitation>,
) -> impl IntoView {
    let pending = RwSignal::new(false);
    let base = format!("/api/owner/programs/{}/entries/{}", p.id, e.id);
    let post = move |suffix: &str, body: serde_json::Value, done: &'static str| {
        act(format!("{base}/{suffix}"), body, done, feedback, reload, pending)
    };
    let to_json = |v: Result<serde_json::Value, serde_json::Error>| v.unwrap_or_default();
    let select = {
        let post = post.clone();
        Callback::new(move |reason_code| {
            post("select", to_json(serde_json::to_value(SelectRequest { reason_code })), "Selected.")
        })
    };
    let decline = {
        let post = post.clone();
        Callback::new(move |reason_code| {
            post("decline", to_json(serde_json::to_value(DeclineRequest { reason_code })), "Declined.")
        })
    };
    let withdraw = {
        let post = post.clone();
        Callback::new(move |basis| {
            post("withdraw", to_json(serde_json::to_value(OwnerWithdrawRequest { basis })), "Withdrawn.")
        })
    };
    // Issue 16: erasure on the person's request, with a reason code; withdraws a live
    // entry first and redacts it at once (the applicant's own erasure is on /me).
    let erase = Callback::new(move |reason_code| {
        post(
            "erase",
            to_json(serde_json::to_value(EraseRequest { reason_code })),
            "Erased on request: the address is gone from this entry.",
        )
    });

    let erased = crate::routes::owner::entry::is_erased(&e);
    let issued = e.invitations.iter().find(|i| i.state == InvitationState::Issued).cloned();
    let expired_issue = issued.as_ref().is_some_and(|i| is_past(&i.expires_at));
    let (pid, eid, max_days) = (p.id, e.id, p.max_invite_days);

    let live = match (&issued, expired_issue) {
        (None, _) => OpenInvitation::None,
        (Some(_), false) => OpenInvitation::Live,
        (Some(_), true) => OpenInvitation::Expired,
    };
    let revoke_invite = issued.filter(|_| !expired_issue).map(|inv| {
        let on_confirm = Callback::new(move |()| {
            act(format!("/api/owner/invitations/{}/revoke", inv.id), serde_json::json!({}), "Invitation revoked; the entry is selected again.", feedback, reload, pending)
        });
        view! { <ConfirmButton label="Revoke invitation" question="Revoke this invitation? Its code stops working at once." confirm_label="Revoke" pending on_confirm/> }
    });
    let revoke_grant = e.grant.filter(|g| g.active).map(|g| {
        let on_confirm = Callback::new(move |()| act(format!("/api/owner/grants/{}/revoke", g.id), serde_json::json!({}), "Access revoked.", feedback, reload, pending));
        view! { <ConfirmButton label="Revoke access" question="Revoke this person's early access? They lose it on their next visit; this cannot be undone." confirm_label="Revoke access" pending on_confirm/> }
    });
    let allowed = EntryActions::of(e.state, live);
    let (can_select, can_decline, can_issue, can_withdraw) =
        (allowed.select, allowed.decline, allowed.issue, allowed.withdraw);
    let is_final = !(can_select || can_decline || can_issue || can_withdraw);
    // The next step first and full size; saying no (decline, withdraw) a step further down,
    // lighter; erasing apart, in its own card with a red edge, and gone once done.
    let saying_no = (can_decline || can_withdraw).then(|| view! {
        <div class="saying-no">
            <h3>"Decline or withdraw"</h3>
            {can_decline.then(|| view! { <ReasonForm id="entry-decline" legend="Decline" options=DECLINE_REASONS button="Decline" pending on_submit=decline class="secondary"/> })}
            {can_withdraw.then(|| view! { <ReasonForm id="entry-withdraw" legend="Withdraw" options=WITHDRAW_BASES button="Withdraw" pending on_submit=withdraw class="secondary"/> })}
        </div>
    });
    view! {
        <section class="card actions-card">
            <h2>"Decisions"</h2>
            {can_select.then(|| view! { <ReasonForm id="entry-select" legend="Select under your policy" options=SELECT_REASONS button="Select" pending on_submit=select/> })}
            {can_issue.then(|| view! {
                <IssueForm program_id=pid entry_id=eid max_days button=if expired_issue { "Issue a new invitation" } else { "Issue invitation" } on_issued/>
            })}
            {revoke_invite}
            {revoke_grant}
            {saying_no}
            {is_final.then(|| view! { <p class="muted">"This entry's outcome is final; no further decisions are possible."</p> })}
        </section>
        {(!erased).then(|| view! {
            <section class="card danger-zone" aria-labelledby="erase-heading">
                <h2 id="erase-heading">"Erase"</h2>
                <p class="muted small">"Only on the person's request or a legal duty: the address is removed at once and for good, and a live entry is withdrawn first."</p>
                <ReasonForm id="entry-erase" legend="Erase on the person's request" options=ERASE_REASONS button="Erase" pending on_submit=erase class="danger"/>
            </section>
        })}
    }
}
