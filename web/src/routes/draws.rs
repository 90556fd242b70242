//! `/waitlist/:slug/draws`: "How this draw is run" (issue 29) — the recipe of a lottery
//! draw on public randomness in plain words, and the program's draws as published: rule,
//! winners, close, drand round, tickets hash, state, and each record as JSON for anyone's
//! own check. Linked from the waitlist page and from an applicant's tickets on `/me`.

use leptos::prelude::*;
use leptos_router::hooks::use_params_map;
use shared::draws::{DrawState, PublicDraw};
use shared::Slug;

use crate::api::{self, ApiError};
use crate::components::set_title;
use crate::components::status::{loaded, Empty, ErrorNotice};
use crate::components::text::time;

/// The program's public draws (an unknown slug is a 404 like the API's).
pub fn public_draws(slug: String) -> LocalResource<Result<Vec<PublicDraw>, ApiError>> {
    LocalResource::new(move || {
        let slug = slug.clone();
        async move {
            Slug::parse(&slug).map_err(|_| ApiError::not_found())?;
            crate::components::next_task().await;
            api::get_public::<Vec<PublicDraw>>(&format!("/api/public/programs/{slug}/draws")).await
        }
    })
}

#[component]
pub fn Draws() -> impl IntoView {
    set_title("How this draw is run");
    let slug = use_params_map().read_untracked().get("slug").unwrap_or_default();
    let draws = public_draws(slug.clone());
    view! {
        <h1>"How this draw is run"</h1>
        <section class="card">
            <p>"When a waitlist has more people than seats, its owner may draw the winners by lot. Each draw here can be checked by anyone, without trusting whoever runs this site:"</p>
            <ol>
                <li>"Opening the draw publishes, before anything is drawn, who takes part (everyone waiting, or a group named by its rule), how many win, when entries close, and which future round of "<a href="https://drand.love">"drand"</a>", the League of Entropy's public randomness beacon, decides."</li>
                <li>"When entries close, the tickets are frozen and published with their hash. A ticket is a hash of the entry: it names no one. Someone leaves the draw only by leaving the waitlist before the close, and the record shows the audit event that says so."</li>
                <li>"Once drand publishes the round, its signature gives the randomness (SHA-256 of the signature). The tickets are ranked by HMAC-SHA256 of that randomness, the draw's id and the ticket; the first ones win. Nobody, the owner included, can know the result earlier or change it later."</li>
            </ol>
            <p class="small">"To check a draw yourself, download its record below and run "<code class="hash">"python3 verify_draw.py record.json --relay https://api.drand.sh/52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971"</code>" (the script is in Vestibule's source, "<code>"tools/verify_draw.py"</code>", Python's standard library only). Your own ticket is shown on your page once you sign in."</p>
        </section>
        <section class="card">
            <h2>"Draws of this waitlist"</h2>
            {loaded(draws, move |r| match r {
                Ok(list) if list.is_empty() => view! { <Empty><p>"No draws yet."</p></Empty> }.into_any(),
                Ok(list) => view! {
                    <ul class="draws">{list.into_iter().map(|d| view! { <PublicDrawItem slug=slug.clone() draw=d/> }).collect_view()}</ul>
                }.into_any(),
                Err(err) => view! { <ErrorNotice err/> }.into_any(),
            })}
        </section>
    }
}

#[component]
fn PublicDrawItem(slug: String, draw: PublicDraw) -> impl IntoView {
    let state = match draw.state {
        DrawState::Open => format!("Entries close {}", time(&draw.closes_at)),
        DrawState::Closed => format!("Tickets frozen; waiting for drand round {}", draw.round),
        DrawState::Run => format!("Drawn {}", draw.run_at.as_deref().map(time).unwrap_or_default()),
        DrawState::Cancelled => format!("Cancelled {}", draw.cancelled_at.as_deref().map(time).unwrap_or_default()),
    };
    let record = format!("/api/public/programs/{slug}/draws/{}", draw.id);
    view! {
        <li class="draw">
            <p><strong>{format!("{} to win", draw.winners)}</strong>{format!(" · {}", draw.filter.describe())}</p>
            <p class="small">{state}</p>
            <p class="muted small">{format!("Opened {}; drand round {}, due {}.", time(&draw.opened_at), draw.round, time(&draw.round_at))}</p>
            {draw.tickets_hash.map(|h| view! {
                <p class="small">{format!("{} tickets, hash ", draw.tickets.unwrap_or_default())}<code class="hash">{h}</code></p>
            })}
            <p class="small"><a href=record download=format!("draw-{}.json", draw.id)>"Record (JSON)"</a></p>
        </li>
    }
}
