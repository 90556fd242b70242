//! A wide table in a region that scrolls sideways on a narrow screen. Policy: such a
//! region must be reachable by keyboard (`tabindex`) and named (`aria-label`), so it is
//! written once, here.

use leptos::prelude::*;

/// `<table>` with `children` inside a focusable region named `label`.
#[component]
pub fn ScrollTable(label: &'static str, children: Children) -> impl IntoView {
    view! {
        <div class="table-wrap" role="region" aria-label=label tabindex="0">
            <table>{children()}</table>
        </div>
    }
}
