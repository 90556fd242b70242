//! The first screen of a form page in steps (issue 27, Lighthouse's TBT). Chromium compiles
//! WebAssembly lazily: every function is compiled on the main thread the first time it
//! runs, so the app's first render of a page is one long task, two thirds of it compiling
//! (traced: about 1,200 functions, 140 ms of 220 ms at a 4× slower CPU). [`Later`] renders
//! its children in a task of their own, after the page around them, so the work is cut into
//! tasks short enough not to block input for long.
//!
//! Nothing half-built is ever shown: while the server's first paint of the form
//! (`api/src/routes/form_page.rs`, `#first-paint`) is in the page, the app's own `<main>`
//! and footer are not displayed (style.css), and [`settle`] removes that first paint only
//! once no [`Later`] is still waiting — the finished page then takes its place in one frame.
//! A page without a first paint (every other page) is not affected: there `Later` only
//! moves its children one task on.

use std::cell::Cell;
use std::time::Duration;

use leptos::prelude::*;
use shared::signup_form as words;

thread_local! {
    /// `Later`s created and not yet rendered.
    static WAITING: Cell<u32> = const { Cell::new(0) };
}

/// The ids of the server's first paint (`api/src/routes/form_page.rs`).
const FIRST_PAINT: [&str; 2] = [words::FIRST_PAINT_ID, words::FIRST_PAINT_FOOTER_ID];

/// Renders `children` in a later task of the browser's (a zero-delay timer).
#[component]
pub fn Later(children: ChildrenFn) -> impl IntoView {
    let shown = RwSignal::new(false);
    WAITING.set(WAITING.get() + 1);
    set_timeout(
        move || {
            shown.set(true);
            // The children render in this task's microtasks; the count drops (and the
            // first paint may go) in the next task, after any `Later` among them has
            // counted itself in.
            set_timeout(
                || {
                    WAITING.set(WAITING.get().saturating_sub(1));
                    settle();
                },
                Duration::ZERO,
            );
        },
        Duration::ZERO,
    );
    move || shown.get().then(|| children())
}

/// Removes the server's first paint once nothing waits to render: the app's page, complete,
/// shows in its place in the same frame (the same elements in the same places, so nothing
/// moves). Called by `main` a task after mounting, and after each [`Later`].
pub fn settle() {
    if WAITING.get() > 0 {
        return;
    }
    let document = document();
    for id in FIRST_PAINT {
        if let Some(first_paint) = document.get_element_by_id(id) {
            first_paint.remove();
        }
    }
}
