//! `/owner/programs/:id/entries/:entry`: one entry — address, state, the notice it agreed
//! to and when, decisions, invitations, grant and history. The one-time code panel sits
//! outside the reloading part of the page, in memory only, so a refresh of the entry
//! keeps it and leaving the page loses it.

use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::components::A;
use shared::api::{EntryDetail, IssuedInvitation, Program};
use shared::InvitationState;
use uuid::Uuid;

use crate::api::{self, ApiError};
use crate::components::events::FilteredEvents;
use crate::components::invitation::{CodePanel, DeliveryForm, OneTimeCode, NOT_MARKED_SENT};
use crate::components::notice::NoticeView;
use crate::components::program_nav::ProgramNav;
use crate::components::questions::AnswersList;
use crate::components::set_title;
use crate::components::status::{loaded, ErrorNotice, RequireSignIn, Success, Warning};
use crate::components::text::{time, StateBadge};
use crate::routes::owner::entry_actions::{Actions, Feedback};
use crate::routes::owner::{load_program, uuid_param};

#[component]
pub fn EntryPage() -> impl IntoView {
    set_title("Queue entry");
    let (id, entry_id) = (uuid_param("id"), uuid_param("entry"));
    let entry = LocalResource::new(move || {
        let (id, entry_id) = (id.get(), entry_id.get());
        async move {
            let path = entry_id.map(|e| format!("/api/owner/programs/{}/entries/{e}", id.unwrap_or_default()));
            let program = load_program(id).await?;
            Ok((api::get::<EntryDetail>(path.ok_or_else(ApiError::not_found)?).await?, program))
        }
    });
    let code = RwSignal::new(None::<OneTimeCode>);
    let feedback: Feedback = RwSignal::new(None);
    let reload = Callback::new(move |()| entry.refetch());
    view! {
        <RequireSignIn>
            {move || id.get().map(|id| view! {
                <ProgramNav id section="Queue entry"/>
                <nav class="row spread entry-nav" aria-label="Entries">
                    <A href=format!("/owner/programs/{id}/queue")>"← Back to the queue"</A>
                    {move || entry_id.get().map(|e| {
                        let (previous, next) = crate::routes::owner::queue_neighbours(id, e);
                        let link = move |to: Option<Uuid>, text: &'static str| to.map(|to| view! {
                            <A href=format!("/owner/programs/{id}/entries/{to}")>{text}</A>
                        });
                        view! { <span class="row">{link(previous, "← Previous entry")}{link(next, "Next entry →")}</span> }
                    })}
                </nav>
            })}
            // The entry is its address: the heading names it once the entry has loaded (an
            // erased entry is "Erased entry", not its tombstone address).
            <h1 id="entry-heading" class="email">
                {move || entry.get().and_then(Result::ok).map_or_else(|| "Queue entry".to_owned(), |(e, _)| {
                    if is_erased(&e) { "Erased entry".to_owned() } else { e.email }
                })}
            </h1>
            {move || code.get().map(|c| view! { <CodePanel code=c on_close=Callback::new(move |()| code.set(None)) on_recorded=reload/> })}
            {move || feedback.get().map(|f| match f {
                Ok(text) => view! { <Success><p>{text}</p></Success> }.into_any(),
                Err(e) if e.status == 409 => view! {
                    <Warning>
                        <p>"This did not happen: the entry changed meanwhile or its state does not allow it. The page now shows its current state."</p>
                    </Warning>
                }.into_any(),
                Err(err) => view! { <ErrorNotice err/> }.into_any(),
            })}
            {loaded(entry, move |r| match r {
                Ok((e, p)) => view! { <EntryView e p code feedback reload/> }.into_any(),
                Err(err) => view! { <ErrorNotice err/> }.into_any(),
            })}
        </RequireSignIn>
    }
}

#[component]
fn EntryView(
    e: EntryDetail,
    p: Program,
    code: RwSignal<Option<OneTimeCode>>,
    feedback: Feedback,
    reload: Callback<()>,
) -> impl IntoView {
    let (email, slug) = (e.email.clone(), p.slug.clone());
    let on_issued = Callback::new(move |issued: IssuedInvitation| {
        match issued.code {
            Some(c) => {
                // The code panel is the news now; an older message would compete with it.
                feedback.set(None);
                code.set(Some(OneTimeCode { invitation: issued.invitation, code: c, email: email.clone(), slug: slug.clone() }));
            }
            None => feedback.set(Some(Ok("This invitation was already issued. Its code was shown once and cannot be shown again; revoke it and issue a new one if it was lost.".into()))),
        }
        reload.run(());
    });
    let notice = e.notice.clone();
    // A live code not marked sent cannot be redeemed: the page says so first, with the form
    // that records it (unless the code panel above, which has its own, is showing it).
    let now = js_sys::Date::now();
    let unsent = e
        .invitations
        .iter()
        .find(|i| {
            i.state == InvitationState::Issued && i.delivery.is_none() && js_sys::Date::parse(&i.expires_at) > now
        })
        .map(|i| i.id);
    let unsent = unsent.map(|inv_id| {
        let shown_above = move || code.with(|c| c.as_ref().is_some_and(|c| c.invitation.id == inv_id));
        move || {
            (!shown_above()).then(|| {
                view! {
                    <section class="card unsent-warning" aria-labelledby="unsent-heading">
                        <h2 id="unsent-heading">{NOT_MARKED_SENT}</h2>
                        <p class="small">"Once you have sent the code, record it here; the recipient can then redeem it."</p>
                        <DeliveryForm invitation_id=inv_id on_recorded=reload/>
                    </section>
                }
            })
        }
    });
    view! {
        {unsent}
        <section class="card">
            <div class="row spread">
                <h2>"Entry"</h2>
                <StateBadge state=e.state.as_str()/>
            </div>
            <p class="muted">{format!("Joined {} · agreed to notice version {} at {}", time(&e.created_at), notice.version, time(&e.permission_at))}</p>
            {e.verified_at_join.as_ref().map(|at| view! { <p class="verified-join">{format!("Joined signed in, with an address the account had confirmed ({})", time(at))}</p> })}
            {is_erased(&e).then(|| view! { <p class="muted small">"The address was erased; the entry is kept as " <span class="mono email">{e.email.clone()}</span>"."</p> })}
        </section>
        {(!notice.questions.is_empty()).then(|| view! {
            <section class="card" aria-labelledby="answers-heading">
                <h2 id="answers-heading">"Answers"</h2>
                <AnswersList questions=notice.questions.clone() answers=e.answers.clone()/>
            </section>
        })}
        <Actions e=e.clone() p=p.clone() feedback reload on_issued/>
        <Invitations e=e.clone()/>
        <NoticeView purpose=notice.purpose contact_text=notice.contact_text retention_text=notice.retention_text
            published=(notice.version, notice.published_at) heading="Notice agreed to" questions=notice.questions/>
        <section class="card">
            <h2>"History, newest first"</h2>
            <FilteredEvents events=e.events/>
        </section>
    }
}

#[component]
fn Invitations(e: EntryDetail) -> impl IntoView {
    if e.invitations.is_empty() && e.grant.is_none() {
        return ().into_any();
    }
    let grant = e.grant.map(|g| {
        let since = format!("Granted {}", time(&g.granted_at));
        let status = match g.revoked_at {
            Some(at) => format!("{since} · revoked {}", time(&at)),
            None if g.active => format!("{since} · active"),
            None => format!("{since} · inactive"),
        };
        view! { <li><strong>"Access grant"</strong><p class="muted small">{status}</p></li> }
    });
    let rows = e
        .invitations
        .into_iter()
        .map(|inv| {
            let needs_delivery = inv.state == InvitationState::Issued && inv.delivery.is_none();
            let delivery = inv.delivery.map(|d| {
                let reference = d.reference.map(|r| format!(" · ref {r}")).unwrap_or_default();
                format!("Sent by {} on {}{reference}", crate::components::text::label(&d.channel), time(&d.recorded_at))
            });
            view! {
                <li>
                    <div class="row spread"><strong>"Invitation"</strong><StateBadge state=inv.state.as_str()/></div>
                    <p class="muted small">{format!("Issued {} · expires {}", time(&inv.issued_at), time(&inv.expires_at))}</p>
                    {delivery.map(|d| view! { <p class="small">{d}</p> })}
                    {needs_delivery.then(|| view! { <p class="small"><span class="badge badge-unsent">"Not marked sent"</span></p> })}
                </li>
            }
        })
        .collect_view();
    view! {
        <section class="card">
            <h2>"Invitations and access"</h2>
            <ul class="plain-list">{rows}{grant}</ul>
        </section>
    }
    .into_any()
}

/// Whether the entry's address was erased: it then holds the tombstone
/// `redacted+<id>@redacted.invalid` (`api/src/db/erasure.rs`).
pub fn is_erased(e: &EntryDetail) -> bool {
    e.email.ends_with("@redacted.invalid")
}

/// Posts an owner action and reports it in `feedback`, then reloads the entry.
pub fn act(
    path: String,
    body: serde_json::Value,
    done: &'static str,
    feedback: Feedback,
    reload: Callback<()>,
    pending: RwSignal<bool>,
) {
    pending.set(true);
    feedback.set(None);
    spawn_local(async move {
        let result = api::post::<_, serde_json::Value>(path, &body).await;
        pending.set(false);
        feedback.set(Some(result.map(|_| done.to_owned())));
        reload.run(());
    });
}
