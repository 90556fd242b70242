//! The page for paths the SPA does not know.

use leptos::prelude::*;
use leptos_router::components::A;

use crate::components::set_title;

#[component]
pub fn NotFound() -> impl IntoView {
    set_title("Not found");
    view! {
        <div class="card">
            <h1>"Page not found"</h1>
            <p>"There is nothing at this address."</p>
            <p><A href="/">"Go to the start page"</A></p>
        </div>
    }
}
