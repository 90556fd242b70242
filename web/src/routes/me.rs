//! `/me`: the signed-in person's own entries across programs, their state and place while
//! waiting, a link to early access when active, and withdrawal after a confirmation.

use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::components::A;
use shared::api::{OwnEntry, WithdrawResponse};
use shared::EntryState;

use crate::api::{self, ApiError};
use crate::components::confirm::ConfirmButton;
use crate::components::set_title;
use crate::components::status::{loaded, Empty, ErrorNotice, RequireSignIn, Success};
use crate::components::text::{time, StateBadge};

#[component]
pub fn Me() -> impl IntoView {
    set_title("My waitlists");
    view! {
        <h1>"My waitlists"</h1>
        <RequireSignIn><Entries/></RequireSignIn>
    }
}

#[component]
fn Entries() -> impl IntoView {
    let entries = LocalResource::new(|| api::get::<Vec<OwnEntry>>("/api/me/entries"));
    let done = RwSignal::new(None::<String>);
    view! {
        {move || done.get().map(|slug| view! { <Success><p>{format!("You have left the waitlist for {slug}.")}</p></Success> })}
        {loaded(entries, move |r| match r {
                    Ok(list) if list.is_empty() => view! {
                        <Empty>
                            <p>"You are not on any waitlist under the addresses verified for this account."</p>
                            <p class="muted">"If you joined with another address, sign in with that one."</p>
                        </Empty>
                    }.into_any(),
                    Ok(list) => view! {
                        <ul class="cards">
                            {list.into_iter().map(|e| view! { <EntryCard entry=e reload=Callback::new(move |slug| { done.set(Some(slug)); entries.refetch(); })/> }).collect_view()}
                        </ul>
                    }.into_any(),
                    Err(err) => view! { <ErrorNotice err/> }.into_any(),
            })}
    }
}

#[component]
fn EntryCard(entry: OwnEntry, reload: Callback<String>) -> impl IntoView {
    let OwnEntry { program_slug: slug, state, joined_at, position } = entry;
    let pending = RwSignal::new(false);
    let failure = RwSignal::new(None::<ApiError>);
    let can_withdraw = state.may_become(EntryState::Withdrawn);
    let withdraw_slug = slug.clone();
    let withdraw = Callback::new(move |()| {
        let slug = withdraw_slug.clone();
        pending.set(true);
        failure.set(None);
        spawn_local(async move {
            let result =
                api::post::<_, WithdrawResponse>(&format!("/api/me/waitlist/{slug}/withdraw"), &serde_json::json!({}))
                    .await;
            pending.set(false);
            match result {
                Ok(_) => reload.run(slug),
                Err(e) => failure.set(Some(e)),
            }
        });
    });
    let place = position
        .filter(|_| state == EntryState::Waiting)
        .map(|p| view! { <p>{format!("Place in the queue: {p}")}</p> });
    let open = (state == EntryState::Active).then(|| {
        view! { <p><A href=format!("/early-access/{slug}") attr:class="button">"Open early access"</A></p> }
    });
    let question = format!(
        "Leave the waitlist for {slug}? Any invitation or access you have for it ends now. This cannot be undone."
    );
    view! {
        <li class="card entry-card">
            <div class="row spread">
                <h2>{slug.clone()}</h2>
                <StateBadge state=state.as_str()/>
            </div>
            <p class="muted">{format!("Joined {}", time(&joined_at))}</p>
            {place}
            {open}
            {can_withdraw.then(|| view! {
                <ConfirmButton label="Leave this waitlist" question confirm_label="Yes, leave" pending on_confirm=withdraw/>
            })}
            {move || failure.get().map(|err| view! { <ErrorNotice err/> })}
        </li>
    }
}
