//! `/owner/programs/:id/notice`: the current notice and publishing the next version, with
//! a live preview exactly as applicants will see it. Notices are never edited: publishing
//! appends a version, and a form opened on the old one is asked to reload.

use leptos::prelude::*;
use leptos::task::spawn_local;
use shared::api::{Notice, Program, PublishNoticeRequest};

use crate::api::{self, ApiError};
use crate::components::notice::NoticeView;
use crate::components::program_nav::ProgramNav;
use crate::components::questions::QuestionsEditor;
use crate::components::set_title;
use crate::components::status::{loaded, Empty, ErrorNotice, RequireSignIn, Success, Warning};
use crate::routes::owner::{load_program, uuid_param};

#[component]
pub fn NoticePage() -> impl IntoView {
    set_title("Program notice");
    let id = uuid_param("id");
    let program = LocalResource::new(move || load_program(id.get()));
    // Kept above the reloading part, so the answer stays on screen after the reload.
    let outcome = RwSignal::new(None::<Result<i32, ApiError>>);
    view! {
        <RequireSignIn>
            {move || id.get().map(|id| view! { <ProgramNav id section="Notice"/> })}
            <h1>"Notice"</h1>
            {move || outcome.get().map(|o| match o {
                Ok(v) => view! { <Success><p>{format!("Version {v} is published. Anyone who opened the form on an older version is asked to reload.")}</p></Success> }.into_any(),
                Err(e) if e.status == 409 => view! {
                    <Warning><p>"This notice was not published: its purpose must be the program's purpose, or someone else published a version meanwhile. Reload and try again."</p></Warning>
                }.into_any(),
                Err(err) => view! { <ErrorNotice err/> }.into_any(),
            })}
            {loaded(program, move |r| match r {
                        Ok(p) => view! { <Publisher p outcome reload=Callback::new(move |()| program.refetch())/> }.into_any(),
                        Err(err) => view! { <ErrorNotice err/> }.into_any(),
                })}
        </RequireSignIn>
    }
}

#[component]
fn Publisher(p: Program, outcome: RwSignal<Option<Result<i32, ApiError>>>, reload: Callback<()>) -> impl IntoView {
    let current = p.notice.clone();
    let contact = RwSignal::new(current.as_ref().map(|n| n.contact_text.clone()).unwrap_or_default());
    let retention = RwSignal::new(current.as_ref().map(|n| n.retention_text.clone()).unwrap_or_default());
    let purpose = p.purpose.clone();
    // The next version starts from the current questions (issue 31).
    let questions = RwSignal::new(current.as_ref().map(|n| n.questions.clone()).unwrap_or_default());
    let next_version = current.as_ref().map_or(1, |n| n.version + 1);
    let pending = RwSignal::new(false);
    let id = p.id;
    let ready = move || {
        !pending.get()
            && !contact.with(|c| c.trim().is_empty())
            && !retention.with(|r| r.trim().is_empty())
            && questions.with(|q| shared::questions::check_questions(q).is_ok())
    };
    let submit = {
        let purpose = purpose.clone();
        move |ev: leptos::ev::SubmitEvent| {
            ev.prevent_default();
            if !ready() {
                return;
            }
            let body = PublishNoticeRequest {
                purpose: purpose.clone(),
                contact_text: contact.get_untracked(),
                retention_text: retention.get_untracked(),
                questions: questions.get_untracked(),
            };
            pending.set(true);
            outcome.set(None);
            spawn_local(async move {
                let result = api::post::<_, Notice>(format!("/api/owner/programs/{id}/notices"), &body).await;
                pending.set(false);
                let published = result.is_ok();
                outcome.set(Some(result.map(|n| n.version)));
                if published {
                    reload.run(());
                }
            });
        }
    };
    let current_view = match current {
        Some(n) => view! {
            <NoticeView purpose=n.purpose contact_text=n.contact_text retention_text=n.retention_text
                published=(n.version, n.published_at) heading="Current notice" questions=n.questions/>
        }
        .into_any(),
        None => {
            view! { <Empty><p>"No notice is published yet. Sign-ups cannot open until one is."</p></Empty> }.into_any()
        }
    };
    view! {
        {current_view}
        <form class="card form" method="post" novalidate on:submit=submit>
            <h2>{format!("Publish version {next_version}")}</h2>
            <p class="muted small">"The purpose is the program's own and cannot change; a new purpose needs a new program."</p>
            <label for="notice-contact">"Contact text"</label>
            <textarea id="notice-contact" rows="3" prop:value=move || contact.get() on:input=move |ev| contact.set(event_target_value(&ev))></textarea>
            <label for="notice-retention">"Retention text"</label>
            <textarea id="notice-retention" rows="3" prop:value=move || retention.get() on:input=move |ev| retention.set(event_target_value(&ev))></textarea>
            <QuestionsEditor questions/>
            <button type="submit" disabled=move || !ready()>{move || if pending.get() { "Publishing…" } else { "Publish this notice" }}</button>
        </form>
        <div class="preview" aria-live="off">
            <NoticeView purpose contact_text=contact retention_text=retention heading="Preview"
                questions=Signal::derive(move || questions.get())/>
        </div>
    }
}
