//! The notice step of a cohort code on `/redeem`: the program's current notice, exactly as
//! published, its questions (issue 31: asked as on the waitlist form) and an unticked box.
//! Only a ticked box (and the required answers) sends the code again, with the notice's
//! version and the answers; if the notice changed meanwhile, the new one is shown and the
//! box and answers are cleared. The code stays in memory only.

use leptos::prelude::*;
use leptos::task::spawn_local;
use shared::api::RedeemRequest;
use shared::cohort::{RedeemNoticeStep, RedeemReply};
use shared::questions::Answers;
use shared::ErrorCode;

use crate::api::{self, ApiError, Code};
use crate::components::notice::NoticeView;
use crate::components::questions::{answers_ready, QuestionFields};
use crate::components::status::{ErrorNotice, Warning};

/// `done` gets the program's slug once the grant is active, or `None` when the code was
/// refused (the same text as any refusal).
#[component]
pub fn NoticeStep(step: RedeemNoticeStep, code: String, done: Callback<Option<String>>) -> impl IntoView {
    let current = RwSignal::new(step);
    let agreed = RwSignal::new(false);
    let changed = RwSignal::new(false);
    let pending = RwSignal::new(false);
    let failure = RwSignal::new(None::<ApiError>);
    let code = StoredValue::new(code);
    let answers = RwSignal::new(Answers::new());
    let answered = move || answers.with(|a| current.with(|s| answers_ready(&s.notice.questions, a)));
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        if !agreed.get_untracked() || !answered() || pending.get_untracked() {
            return;
        }
        let given = answers.get_untracked();
        let body = RedeemRequest {
            code: code.get_value(),
            notice_version: Some(current.with_untracked(|s| s.notice.version)),
            permission: Some(true),
            answers: (!given.is_empty()).then_some(given),
        };
        pending.set(true);
        failure.set(None);
        spawn_local(async move {
            let result = api::post::<_, RedeemReply>("/api/me/invitations/redeem", &body).await;
            pending.set(false);
            match result {
                Ok(RedeemReply::NoticeRequired(newer)) => {
                    current.set(newer);
                    agreed.set(false);
                    answers.set(Answers::new());
                    changed.set(true);
                }
                Ok(RedeemReply::Redeemed(r)) => done.run(Some(r.program_slug)),
                Err(e) if e.code == Code::Api(ErrorCode::InvalidAnswer) => failure.set(Some(e)),
                Err(e) if matches!(e.status, 400 | 404) => done.run(None),
                Err(e) => failure.set(Some(e)),
            }
        });
    };
    view! {
        <form class="card form" method="post" novalidate on:submit=submit>
            <h2>{move || format!("Join {}", current.with(|s| s.program_slug.clone()))}</h2>
            <p>"This code opens the program for you. First read how your email address will be used."</p>
            {move || changed.get().then(|| view! { <Warning><p>"The notice changed while you were reading. Please read the current version."</p></Warning> })}
            {move || {
                let n = current.get().notice;
                view! {
                    <NoticeView purpose=n.purpose contact_text=n.contact_text retention_text=n.retention_text
                        published=(n.version, n.published_at) questions=n.questions.clone()/>
                    <QuestionFields questions=n.questions answers prefix="cohort"/>
                }
            }}
            <div class="check">
                <input id="cohort-permission" type="checkbox"
                    prop:checked=move || agreed.get() on:change=move |ev| agreed.set(event_target_checked(&ev))/>
                <label for="cohort-permission">
                    "I want to join this program, and I agree that my email address is used and kept as the notice above describes."
                </label>
            </div>
            <button type="submit" disabled=move || !agreed.get() || !answered() || pending.get()>
                {move || if pending.get() { "Joining…" } else { "Accept and join" }}
            </button>
            {move || failure.get().map(|err| view! { <ErrorNotice err/> })}
        </form>
    }
}
