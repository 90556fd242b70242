//! The owner's navigation inside one program: back to all programs, the program's name,
//! then one tab per section. `<A>` marks the current tab with `aria-current="page"`; the
//! tabs scroll sideways on a narrow screen. It also names the page in the document title
//! ("Queue · aurora-beta"), so every program page says which program it is about.

use leptos::prelude::*;
use leptos_router::components::A;
use uuid::Uuid;

use crate::components::set_title;
use crate::routes::owner::load_program;

#[component]
pub fn ProgramNav(id: Uuid, section: &'static str) -> impl IntoView {
    let base = format!("/owner/programs/{id}");
    let program = LocalResource::new(move || load_program(Some(id)));
    let slug = move || {
        program.get().and_then(Result::ok).map(|p| {
            set_title(&format!("{section} · {}", p.slug));
            p.slug
        })
    };
    view! {
        <p class="crumbs">
            <A href="/owner" exact=true>"← All programs"</A>
            {move || slug().map(|s| view! { <span class="crumb-program">" / " {s}</span> })}
        </p>
        <nav class="tabs" aria-label="Program sections">
            <A href=base.clone() exact=true>"Overview"</A>
            <A href=format!("{base}/queue")>"Queue"</A>
            <A href=format!("{base}/notice")>"Notice"</A>
            <A href=format!("{base}/content")>"Content"</A>
            <A href=format!("{base}/cohorts")>"Cohort codes"</A>
            <A href=format!("{base}/draws")>"Lottery"</A>
            <A href=format!("{base}/audit")>"Audit log"</A>
        </nav>
    }
}
