//! Cursor paging for API lists that answer `nextCursor`: a stack of the cursors that led
//! to the current page, so "Previous" needs no server support.

use leptos::prelude::*;

/// The cursors of the pages after the first; the last one is the current page's.
#[derive(Clone, Copy)]
pub struct Cursors(pub RwSignal<Vec<String>>);

impl Cursors {
    pub fn new() -> Self {
        Cursors(RwSignal::new(Vec::new()))
    }

    /// The current page's cursor (tracked).
    pub fn current(&self) -> Option<String> {
        self.0.with(|c| c.last().cloned())
    }

    pub fn reset(&self) {
        self.0.set(Vec::new());
    }
}

/// "Page 2 of 5" where the number of pages is known (`pages`, or this is the last page),
/// else "Page 2".
#[component]
pub fn Pager(
    cursors: Cursors,
    next: Option<String>,
    #[prop(default = "Pages")] label: &'static str,
    /// How many pages there are, when a figure says so.
    #[prop(optional, into)]
    pages: Option<Signal<Option<usize>>>,
) -> impl IntoView {
    let page = move || cursors.0.with(Vec::len) + 1;
    let last = next.is_none();
    let of = move || {
        let known = pages.and_then(|p| p.get()).map(|n| n.max(page()));
        match (known, last) {
            (_, true) => format!("Page {} of {}", page(), page()),
            (Some(n), false) => format!("Page {} of {n}", page()),
            (None, false) => format!("Page {}", page()),
        }
    };
    let has_prev = move || cursors.0.with(|c| !c.is_empty());
    let has_next = next.is_some();
    view! {
        <nav class="pager" aria-label=label>
            <button type="button" class="secondary" disabled=move || !has_prev() on:click=move |_| cursors.0.update(|c| drop(c.pop()))>
                "← Previous"
            </button>
            <span aria-live="polite">{of}</span>
            <button type="button" class="secondary" disabled=!has_next on:click=move |_| {
                if let Some(n) = next.clone() {
                    cursors.0.update(|c| c.push(n));
                }
            }>
                "Next →"
            </button>
        </nav>
    }
}
