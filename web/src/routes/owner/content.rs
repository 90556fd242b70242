//! `/owner/programs/:id/content`: the private early-access text, edited with a live
//! preview rendered exactly as recipients see it (the same `components::markdown` renderer
//! as `/early-access/:slug`: a safe Markdown subset, raw HTML shown as text). Saving sends
//! the revision the editor started from (0 before any content); a stale one is a 409.

use leptos::prelude::*;
use leptos::task::spawn_local;
use shared::api::{Content, PutContentRequest};

use crate::api::{self, ApiError};
use crate::components::markdown::{Markdown, SyntaxHelp};
use crate::components::program_nav::ProgramNav;
use crate::components::set_title;
use crate::components::status::{loaded, ErrorNotice, RequireSignIn, Success, Warning};
use crate::routes::owner::{load_program, uuid_param};

const MAX_CHARS: usize = 20_000;

#[component]
pub fn ContentPage() -> impl IntoView {
    set_title("Early-access content");
    let id = uuid_param("id");
    let content = LocalResource::new(move || {
        let id = id.get();
        async move {
            let id = id.ok_or_else(ApiError::not_found)?;
            match api::get::<Content>(format!("/api/owner/programs/{id}/content")).await {
                Ok(c) => Ok(Some(c)),
                // No content yet is an empty editor at revision 0, not an error.
                Err(e) if e.status == 404 => load_program(Some(id)).await.map(|_| None),
                Err(e) => Err(e),
            }
        }
    });
    view! {
        <RequireSignIn>
            {move || id.get().map(|id| view! { <ProgramNav id section="Content"/> })}
            <h1>"Early-access content"</h1>
            {loaded(content, move |r| match (r, id.get_untracked()) {
                (Ok(c), Some(id)) => view! { <Editor id content=c reload=Callback::new(move |()| content.refetch())/> }.into_any(),
                (Err(err), _) => view! { <ErrorNotice err/> }.into_any(),
                (Ok(_), None) => view! { <ErrorNotice err=ApiError::not_found()/> }.into_any(),
            })}
        </RequireSignIn>
    }
}

#[component]
fn Editor(id: uuid::Uuid, content: Option<Content>, reload: Callback<()>) -> impl IntoView {
    let revision = RwSignal::new(content.as_ref().map_or(0, |c| c.revision));
    let body = RwSignal::new(content.map(|c| c.body).unwrap_or_default());
    let pending = RwSignal::new(false);
    let outcome = RwSignal::new(None::<Result<i64, ApiError>>);
    let chars = move || body.with(|b| b.chars().count());
    let fits = move || (1..=MAX_CHARS).contains(&chars());
    let save = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        if !fits() || pending.get_untracked() {
            return;
        }
        let request = PutContentRequest { expected_revision: revision.get_untracked(), body: body.get_untracked() };
        pending.set(true);
        outcome.set(None);
        spawn_local(async move {
            let result = api::put::<_, Content>(format!("/api/owner/programs/{id}/content"), &request).await;
            pending.set(false);
            if let Ok(c) = &result {
                revision.set(c.revision);
            }
            outcome.set(Some(result.map(|c| c.revision)));
        });
    };
    view! {
        {move || outcome.get().map(|o| match o {
            Ok(r) => view! { <Success><p>{format!("Saved: version {r} of the content is what recipients see now.")}</p></Success> }.into_any(),
            Err(e) if e.status == 409 => view! {
                <Warning>
                    <p>"Someone else changed this — reload to see the current version. Reloading replaces your text, so copy it first if you need it."</p>
                    <button type="button" class="secondary" on:click=move |_| reload.run(())>"Reload"</button>
                </Warning>
            }.into_any(),
            Err(err) => view! { <ErrorNotice err/> }.into_any(),
        })}
        <div class="editor">
            <form class="card form" method="post" on:submit=save>
                <label for="content-body">"Text shown to people with early access"</label>
                <textarea id="content-body" rows="14" aria-describedby="content-syntax content-help"
                    prop:value=move || body.get() on:input=move |ev| body.set(event_target_value(&ev))></textarea>
                <p id="content-syntax" class="muted small syntax-help"><SyntaxHelp/></p>
                <p id="content-help" class="muted small">
                    {move || match revision.get() {
                        0 => format!("{} / {MAX_CHARS} characters · not saved yet", chars()),
                        r => format!("{} / {MAX_CHARS} characters · changing version {r}, which recipients see now", chars()),
                    }}
                </p>
                <button type="submit" disabled=move || pending.get() || !fits()>{move || if pending.get() { "Saving…" } else { "Save" }}</button>
            </form>
            <section class="card preview" aria-label="Preview">
                <h2>"Preview"</h2>
                {move || body.with(|b| b.trim().is_empty()).then(|| view! { <p class="muted">"Nothing written yet."</p> })}
                <div class="content">{move || view! { <Markdown text=body.get()/> }}</div>
            </section>
        </div>
    }
}
