//! `/owner/programs/:id/cohorts`: multi-use cohort codes. Create one (label, uses,
//! days, optional note), see it once with a copy button, watch each code's uses against
//! its maximum, revoke one. The code is only ever in memory on this page: never in a
//! URL, storage or a log, and gone once the page is left.

use leptos::prelude::*;
use leptos::task::spawn_local;
use shared::cohort::{CohortCode, CohortCodeState, CreateCohortCodeRequest, CreatedCohortCode};
use shared::ErrorCode;
use uuid::Uuid;

use crate::api::{self, ApiError};
use crate::components::chart::Usage;
use crate::components::confirm::ConfirmButton;
use crate::components::copy::CopyField;
use crate::components::program_nav::ProgramNav;
use crate::components::status::{loaded, Empty, ErrorNotice, RequireSignIn, Warning};
use crate::components::text::{days_from_now, time};
use crate::routes::owner::{load_program, uuid_param};

#[component]
pub fn CohortsPage() -> impl IntoView {
    let id = uuid_param("id");
    view! {
        <RequireSignIn>
            {move || id.get().map(|id| view! { <ProgramNav id section="Cohort codes"/> <Cohorts id/> })}
        </RequireSignIn>
    }
}

#[component]
fn Cohorts(id: Uuid) -> impl IntoView {
    let codes =
        LocalResource::new(move || api::get::<Vec<CohortCode>>(format!("/api/owner/programs/{id}/cohort-codes")));
    let program = LocalResource::new(move || load_program(Some(id)));
    let reload = Callback::new(move |()| codes.refetch());
    view! {
        <h1>"Cohort codes"</h1>
        <p class="lead">"A cohort code lets a group in without the queue: each person signs in, reads the current notice, ticks the box and gets access, until the code's uses or the seats run out."</p>
        {loaded(program, move |r| match r {
            Ok(p) => view! { <CreateForm id max_days=p.max_invite_days reload/> }.into_any(),
            Err(err) => view! { <ErrorNotice err/> }.into_any(),
        })}
        <section class="card">
            <h2>"Codes"</h2>
            {loaded(codes, move |r| match r {
                Ok(list) if list.is_empty() => view! { <Empty><p>"No cohort codes yet."</p></Empty> }.into_any(),
                Ok(list) => view! {
                    <ul class="cohort-codes">
                        {list.into_iter().map(|c| view! { <CodeRow program=id code=c reload/> }).collect_view()}
                    </ul>
                }.into_any(),
                Err(err) => view! { <ErrorNotice err/> }.into_any(),
            })}
        </section>
    }
}

#[component]
fn CreateForm(id: Uuid, max_days: i32, reload: Callback<()>) -> impl IntoView {
    let label = RwSignal::new(String::new());
    let uses = RwSignal::new("25".to_owned());
    let days = RwSignal::new(max_days.clamp(1, 7).to_string());
    let note = RwSignal::new(String::new());
    let pending = RwSignal::new(false);
    let failure = RwSignal::new(None::<ApiError>);
    let created = RwSignal::new(None::<CreatedCohortCode>);
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let max_uses = uses.get_untracked().trim().parse::<i32>().ok().filter(|n| (1..=10_000).contains(n));
        let valid_days = days.get_untracked().trim().parse::<u32>().ok().filter(|d| *d >= 1 && *d as i32 <= max_days);
        let (Some(max_uses), Some(d)) = (max_uses, valid_days) else {
            failure.set(Some(ApiError::invalid(format!("Choose 1 to 10000 uses and 1 to {max_days} days."))));
            return;
        };
        let note_text = note.get_untracked().trim().to_owned();
        let body = CreateCohortCodeRequest {
            label: label.get_untracked().trim().to_owned(),
            max_uses,
            expires_at: days_from_now(d),
            note: (!note_text.is_empty()).then_some(note_text),
        };
        pending.set(true);
        failure.set(None);
        created.set(None);
        spawn_local(async move {
            let result =
                api::post::<_, CreatedCohortCode>(format!("/api/owner/programs/{id}/cohort-codes"), &body).await;
            pending.set(false);
            match result {
                Ok(c) => {
                    label.set(String::new());
                    note.set(String::new());
                    created.set(Some(c));
                    reload.run(());
                }
                Err(e) => failure.set(Some(match (e.status, e.api_code()) {
                    (400, Some(ErrorCode::InvalidLabel)) => e.explained("Give the code a label of 1 to 80 characters."),
                    (400, Some(ErrorCode::InvalidNote)) => e.explained("The note can be at most 500 characters."),
                    (409, _) => {
                        e.explained("The expiry must be in the future and within the program's longest invitation.")
                    }
                    _ => e,
                })),
            }
        });
    };
    view! {
        <form class="card form" method="post" novalidate on:submit=submit>
            <h2>"New cohort code"</h2>
            <div class="fields">
                <div>
                    <label for="cohort-label">"Label (only you see it)"</label>
                    <input id="cohort-label" type="text" maxlength="80" required prop:value=move || label.get() on:input=move |ev| label.set(event_target_value(&ev))/>
                </div>
                <div>
                    <label for="cohort-uses">"Uses (1–10000)"</label>
                    <input id="cohort-uses" type="number" min="1" max="10000" inputmode="numeric" prop:value=move || uses.get() on:input=move |ev| uses.set(event_target_value(&ev))/>
                </div>
                <div>
                    <label for="cohort-days">{format!("Valid for (days, 1–{max_days})")}</label>
                    <input id="cohort-days" type="number" min="1" max=max_days inputmode="numeric" prop:value=move || days.get() on:input=move |ev| days.set(event_target_value(&ev))/>
                </div>
            </div>
            <label for="cohort-note">"Note (optional, only you see it)"</label>
            <textarea id="cohort-note" rows="2" maxlength="500" prop:value=move || note.get() on:input=move |ev| note.set(event_target_value(&ev))></textarea>
            <button type="submit" disabled=move || pending.get()>{move || if pending.get() { "Creating…" } else { "Create code" }}</button>
            {move || failure.get().map(|err| view! { <ErrorNotice err/> })}
        </form>
        {move || created.get().map(|c| view! {
            <div class="card one-time">
                <h2>{format!("Code for “{}”", c.cohort_code.label)}</h2>
                <Warning><p>"This is the only time the code is shown. Copy it now and share it with the group; only its fingerprint is kept."</p></Warning>
                <CopyField value=c.code id="cohort-code" label="Cohort code"/>
                <p class="muted small">{format!("{} uses, expires {}", c.cohort_code.max_uses, time(&c.cohort_code.expires_at))}</p>
            </div>
        })}
    }
}

fn state_text(state: CohortCodeState) -> &'static str {
    match state {
        CohortCodeState::Active => "Active",
        CohortCodeState::Exhausted => "All uses taken",
        CohortCodeState::Expired => "Expired",
        CohortCodeState::Revoked => "Revoked",
    }
}

#[component]
fn CodeRow(program: Uuid, code: CohortCode, reload: Callback<()>) -> impl IntoView {
    let pending = RwSignal::new(false);
    let failure = RwSignal::new(None::<ApiError>);
    let code_id = code.id;
    let revoke = Callback::new(move |()| {
        pending.set(true);
        spawn_local(async move {
            let result =
                api::delete::<CohortCode>(format!("/api/owner/programs/{program}/cohort-codes/{code_id}")).await;
            pending.set(false);
            match result {
                Ok(_) => reload.run(()),
                Err(e) => failure.set(Some(e)),
            }
        });
    });
    let revocable = code.state != CohortCodeState::Revoked;
    view! {
        <li class="cohort-code">
            <div class="row spread">
                <strong>{code.label.clone()}</strong>
                <span class="badge">{state_text(code.state)}</span>
            </div>
            {code.note.clone().map(|n| view! { <p class="exact small">{n}</p> })}
            <Usage label="Uses" value=i64::from(code.uses) cap=code.max_uses/>
            <p class="muted small">{format!("Created {}, expires {}", time(&code.created_at), time(&code.expires_at))}</p>
            {revocable.then(|| view! {
                <ConfirmButton label="Revoke code" question="Nobody can use this code afterwards. People who already used it keep their access." confirm_label="Revoke" pending on_confirm=revoke/>
            })}
            {move || failure.get().map(|err| view! { <ErrorNotice err/> })}
        </li>
    }
}
