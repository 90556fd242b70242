//! `/owner/programs/:id`: one program's overview — sign-ups open or closed, the access
//! switch, caps, usage and two charts. Every change is a PATCH carrying the revision the
//! page was showing; a stale one answers 409 and the page asks for a reload. Closing
//! sign-ups and switching access off ask first, saying whom it affects ("3 people lose
//! access now"), counted from the program's entries by state
//! (`Program::counts`: a resource read inside the page's `Transition` would re-render it
//! when it arrives and drop the focus the navigation put on the heading).

use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::components::A;
use shared::api::{PatchProgramRequest, Program};

use crate::api::{self, ApiError};
use crate::components::chart::{Activity, Usage};
use crate::components::clerk_sync::ClerkSyncForm;
use crate::components::confirm::ConfirmButton;
use crate::components::edge::{EmbedForm, PresentationForm};
use crate::components::invitation::UnsentNotice;
use crate::components::program_nav::ProgramNav;
use crate::components::questions::JoinWithForm;
use crate::components::set_title;
use crate::components::status::{loaded, ErrorNotice, RequireSignIn, Success, Warning};
use crate::routes::owner::{conflict_text, load_program, uuid_param};

#[component]
pub fn ProgramPage() -> impl IntoView {
    set_title("Program overview");
    let id = uuid_param("id");
    let program = LocalResource::new(move || load_program(id.get()));
    let feedback = RwSignal::new(None::<Result<&'static str, ApiError>>);
    // Which settings are unfolded, kept across the reload after a save.
    let folds: Folds = RwSignal::new(Vec::new());
    view! {
        <RequireSignIn>
            {move || id.get().map(|id| view! { <ProgramNav id section="Overview"/> })}
            {move || feedback.get().map(|f| match f {
                Ok(text) => view! { <Success><p>{text}</p></Success> }.into_any(),
                Err(e) if e.status == 409 => view! {
                    <Warning>
                        <p>{conflict_text(&e)}</p>
                        <button type="button" class="secondary" on:click=move |_| { feedback.set(None); program.refetch(); }>"Reload"</button>
                    </Warning>
                }.into_any(),
                Err(err) => view! { <ErrorNotice err/> }.into_any(),
            })}
            {loaded(program, move |r| match r {
                        Ok(p) => view! { <Overview p feedback folds reload=Callback::new(move |()| program.refetch())/> }.into_any(),
                        Err(err) => view! { <h1>"Program"</h1><ErrorNotice err/> }.into_any(),
                })}
        </RequireSignIn>
    }
}

/// The settings unfolded on the page, by their summary.
type Folds = RwSignal<Vec<&'static str>>;

/// One setting, folded under its name (the overview shows the program's state first; its
/// settings stay one click away, issue 27). `open_at_first` unfolds it until the owner
/// folds it.
#[component]
fn Fold(label: &'static str, folds: Folds, #[prop(optional)] open_at_first: bool, children: Children) -> impl IntoView {
    if open_at_first && !folds.with_untracked(|f| f.contains(&label)) {
        folds.update(|f| f.push(label));
    }
    let toggle = move |ev: leptos::ev::Event| {
        let open = event_target::<web_sys::HtmlDetailsElement>(&ev).open();
        folds.update(|f| {
            f.retain(|l| *l != label);
            if open {
                f.push(label);
            }
        });
    };
    view! {
        <details class="fold" prop:open=move || folds.with(|f| f.contains(&label)) on:toggle=toggle>
            <summary>{label}</summary>
            {children()}
        </details>
    }
}

#[component]
fn Overview(
    p: Program,
    feedback: RwSignal<Option<Result<&'static str, ApiError>>>,
    folds: Folds,
    reload: Callback<()>,
) -> impl IntoView {
    let pending = RwSignal::new(false);
    let (id, revision) = (p.id, p.revision);
    let change = move |patch: PatchProgramRequest, done: &'static str| {
        pending.set(true);
        feedback.set(None);
        spawn_local(async move {
            let result = api::patch::<_, Program>(format!("/api/owner/programs/{id}"), &patch).await;
            pending.set(false);
            let saved = result.is_ok();
            feedback.set(Some(result.map(|_| done)));
            if saved {
                reload.run(());
            }
        });
    };
    let blank = PatchProgramRequest {
        expected_revision: revision,
        signup_open: None,
        access_enabled: None,
        queue_cap: None,
        hourly_cap: None,
        title: None,
        description: None,
        proof_of_work: None,
        embed_origins: None,
        seat_cap: None,
        clerk: None,
        join_with: None,
    };
    let (open, access) = (p.signup_open, p.access_enabled);
    let toggle_open = {
        let patch = PatchProgramRequest { signup_open: Some(!open), ..blank.clone() };
        Callback::new(move |()| change(patch.clone(), if open { "Sign-ups are closed." } else { "Sign-ups are open." }))
    };
    let toggle_access = {
        let patch = PatchProgramRequest { access_enabled: Some(!access), ..blank.clone() };
        Callback::new(move |()| {
            change(patch.clone(), if access { "Early access is switched off." } else { "Early access is switched on." })
        })
    };
    // Whom a switch affects, from the program's own counts (the same numbers as the funnel).
    let (waiting, active) = (p.counts.waiting, p.counts.active);
    let close_question = match waiting {
        0 => "Sign-ups close now; nobody is waiting. You can open sign-ups again at any time.".to_owned(),
        1 => "Sign-ups close now; 1 person is waiting and keeps their place. You can open sign-ups again at any time."
            .to_owned(),
        n => format!(
            "Sign-ups close now; {n} people are waiting and keep their place. You can open sign-ups again at any time."
        ),
    };
    let off_question = match active {
        0 => "Nobody has access yet, so nobody loses it. The content stays closed until you switch access on again.".to_owned(),
        1 => "1 person loses access now: their early-access page stops opening until you switch access on again. Their grant is kept.".to_owned(),
        n => format!("{n} people lose access now: their early-access pages stop opening until you switch access on again. Their grants are kept."),
    };
    let caps = [("Queue cap", p.queue_cap), ("Sign-ups per hour", p.hourly_cap), ("Seats", p.seat_cap)]
        .map(|(l, v)| (l, RwSignal::new(v.to_string())));
    let presentation_blank = blank.clone();
    let (p_presentation, p_embed, p_clerk, p_join) = (p.clone(), p.clone(), p.clone(), p.clone());
    let untitled = p.title.is_none();
    let embed_blank = blank.clone();
    let clerk_blank = blank.clone();
    let join_blank = blank.clone();
    let save_caps = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let [q, h, s] = caps.map(|(_, v)| v.get_untracked().trim().parse::<i32>().ok());
        change(PatchProgramRequest { queue_cap: q, hourly_cap: h, seat_cap: s, ..blank.clone() }, "Caps saved.");
    };
    view! {
        <div class="row spread">
            <h1>{p.title.clone().unwrap_or_else(|| p.slug.clone())}</h1>
            <A href=format!("/waitlist/{}", p.slug)>"Public form"</A>
        </div>
        <p class="lead exact">{p.purpose.clone()}</p>
        {(p.counts.not_sent > 0).then(|| view! { <UnsentNotice program_id=p.id slug=p.slug.clone() n=p.counts.not_sent/> })}
        <div class="grid">
            <section class="card">
                <h2>"Sign-ups"</h2>
                <p>{if open { "Open: the public form accepts sign-ups." } else { "Closed: the public form shows the notice but accepts nothing." }}</p>
                {(!open && p.notice.is_none()).then(|| view! { <p class="muted small">"Publish a notice before opening sign-ups."</p> })}
                {if open {
                    view! { <ConfirmButton label="Close sign-ups" question=close_question confirm_label="Yes, close sign-ups" pending on_confirm=toggle_open/> }.into_any()
                } else {
                    view! { <button type="button" disabled=move || pending.get() on:click=move |_| toggle_open.run(())>"Open sign-ups"</button> }.into_any()
                }}
            </section>
            <section class="card">
                <h2>"Early access"</h2>
                <p>{if access { "On: people with an active grant can read the content." } else { "Off: nobody can read the content." }}</p>
                {(!access && !p.has_content).then(|| view! { <p class="muted small">"Write the content before switching access on."</p> })}
                {if access {
                    view! { <ConfirmButton label="Switch access off" question=off_question confirm_label="Yes, switch access off" pending on_confirm=toggle_access/> }.into_any()
                } else {
                    view! { <button type="button" disabled=move || pending.get() on:click=move |_| toggle_access.run(())>"Switch access on"</button> }.into_any()
                }}
            </section>
        </div>
        <section class="card">
            <h2>"Usage"</h2>
            <Usage label="Queue" value=p.counts.queue cap=p.queue_cap/>
            <Usage label="This hour" value=p.counts.hour cap=p.hourly_cap/>
            <Usage label="Seats" value=p.counts.seats cap=p.seat_cap/>
            <p class="muted small">{format!("Invitations last at most {} days.", p.max_invite_days)}</p>
        </section>
        <section class="card">
            <h2>"Activity"</h2>
            <Activity id/>
        </section>
        <h2 class="settings-heading">"Settings"</h2>
        <Fold label="Title and description" folds open_at_first=untitled>
            <PresentationForm p=p_presentation blank=presentation_blank pending change=Callback::new(move |(patch, done)| change(patch, done))/>
        </Fold>
        <Fold label="Caps" folds>
        <form class="card form" method="post" on:submit=save_caps>
            <h2>"Caps"</h2>
            <div class="fields">
                {caps.into_iter().enumerate().map(|(i, (label, value))| view! {
                    <div>
                        <label for=format!("cap-{i}")>{label}</label>
                        <input id=format!("cap-{i}") type="number" min="1" inputmode="numeric" prop:value=move || value.get() on:input=move |ev| value.set(event_target_value(&ev))/>
                    </div>
                }).collect_view()}
            </div>
            <p class="muted small">"The seat cap cannot go below the seats in use (active grants plus unexpired invitations)."</p>
            <button type="submit" disabled=move || pending.get()>"Save caps"</button>
        </form>
        </Fold>
        <Fold label="Embedding and bot protection" folds>
            <EmbedForm p=p_embed blank=embed_blank pending change=Callback::new(move |(patch, done)| change(patch, done))/>
        </Fold>
        <Fold label="On grant, in Clerk" folds>
            <ClerkSyncForm p=p_clerk blank=clerk_blank pending change=Callback::new(move |(patch, done)| change(patch, done))/>
        </Fold>
        <Fold label="How applicants join" folds>
            <JoinWithForm p=p_join blank=join_blank pending change=Callback::new(move |(patch, done)| change(patch, done))/>
        </Fold>
    }
}
