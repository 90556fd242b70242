//! The owner's navigation inside one program: back to all programs, then one tab per
//! section. `<A>` marks the current tab with `aria-current="page"`.

use leptos::prelude::*;
use leptos_router::components::A;
use uuid::Uuid;

#[component]
pub fn ProgramNav(id: Uuid) -> impl IntoView {
    let base = format!("/owner/programs/{id}");
    view! {
        <p class="crumbs"><A href="/owner" exact=true>"← All programs"</A></p>
        <nav class="tabs" aria-label="Program sections">
            <A href=base.clone() exact=true>"Overview"</A>
            <A href=format!("{base}/queue")>"Queue"</A>
            <A href=format!("{base}/notice")>"Notice"</A>
            <A href=format!("{base}/content")>"Content"</A>
            <A href=format!("{base}/audit")>"Audit log"</A>
        </nav>
    }
}
