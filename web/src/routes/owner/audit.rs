//! `/owner/programs/:id/audit`: the program's audit events in id order, page by page.

use leptos::prelude::*;
use shared::api::EventPage;

use crate::api::{self, ApiError};
use crate::components::events::EventList;
use crate::components::pager::{Cursors, Pager};
use crate::components::program_nav::ProgramNav;
use crate::components::set_title;
use crate::components::status::{loaded, Empty, ErrorNotice, RequireSignIn};
use crate::routes::owner::uuid_param;

#[component]
pub fn Audit() -> impl IntoView {
    set_title("Audit log");
    let id = uuid_param("id");
    let cursors = Cursors::new();
    let page = LocalResource::new(move || {
        let path = id.get().map(|id| match cursors.current() {
            Some(c) => {
                format!("/api/owner/programs/{id}/events?cursor={}", String::from(js_sys::encode_uri_component(&c)))
            }
            None => format!("/api/owner/programs/{id}/events"),
        });
        async move { api::get::<EventPage>(path.ok_or_else(ApiError::not_found)?).await }
    });
    view! {
        <RequireSignIn>
            {move || id.get().map(|id| view! { <ProgramNav id section="Audit log"/> })}
            <h1>"Audit log"</h1>
            <p class="muted">"Every change to this program and its entries, oldest first. Events hold ids, states and reason codes only."</p>
            {loaded(page, move |r| match r {
                        Ok(pg) if pg.events.is_empty() => view! { <Empty><p>"No events yet."</p></Empty> }.into_any(),
                        Ok(pg) => view! {
                            <section class="card"><EventList events=pg.events program_id=id.get_untracked().unwrap_or_default()/></section>
                            <Pager cursors next=pg.next_cursor label="Audit log pages"/>
                        }.into_any(),
                        Err(err) => view! { <ErrorNotice err/> }.into_any(),
                })}
        </RequireSignIn>
    }
}
