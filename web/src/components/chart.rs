//! Two small charts for a program: sign-ups per UTC hour over the last day (inline SVG
//! bars) and the state funnel (proportional bars). Both carry their numbers as text too.

use leptos::prelude::*;

use crate::components::text::label;

/// `counts` holds one value per hour, oldest first, the last one the current hour.
#[component]
pub fn IntakeChart(counts: Vec<i64>) -> impl IntoView {
    let peak = counts.iter().copied().max().unwrap_or(0).max(1);
    let total: i64 = counts.iter().sum();
    let n = counts.len().max(1) as f64;
    let width = 240.0;
    let slot = width / n;
    let bars = counts
        .iter()
        .enumerate()
        .map(|(i, &c)| {
            let h = (c as f64 / peak as f64) * 60.0;
            let h = if c > 0 { h.max(2.0) } else { 0.0 };
            view! {
                <rect x=format!("{:.1}", i as f64 * slot + 1.0) y=format!("{:.1}", 64.0 - h)
                    width=format!("{:.1}", (slot - 2.0).max(1.0)) height=format!("{h:.1}") rx="1"></rect>
            }
        })
        .collect_view();
    let summary = format!(
        "Sign-ups per hour over the last {} hours: {total} in total, at most {peak} in one hour.",
        counts.len()
    );
    view! {
        <figure class="chart">
            <svg viewBox="0 0 240 66" role="img" aria-label=summary.clone() preserveAspectRatio="none">
                <line x1="0" y1="64.5" x2="240" y2="64.5" class="axis"></line>
                <g class="bars">{bars}</g>
            </svg>
            <figcaption>
                <span>{format!("{} h ago", counts.len())}</span>
                <span>{format!("{total} sign-ups")}</span>
                <span>"now"</span>
            </figcaption>
        </figure>
    }
}

/// Entries per state, in the order an entry moves through them.
#[component]
pub fn Funnel(states: Vec<(String, i64)>) -> impl IntoView {
    let peak = states.iter().map(|(_, n)| *n).max().unwrap_or(0).max(1);
    let rows = states
        .into_iter()
        .map(|(state, n)| {
            let pct = (n as f64 / peak as f64 * 100.0).max(if n > 0 { 2.0 } else { 0.0 });
            view! {
                <li>
                    <span class="funnel-label">{label(&state)}</span>
                    <span class="funnel-track" aria-hidden="true">
                        <span class=format!("funnel-bar badge-{state}") style=format!("width:{pct:.1}%")></span>
                    </span>
                    <span class="funnel-count">{n}</span>
                </li>
            }
        })
        .collect_view();
    view! { <ul class="funnel" aria-label="Entries by state">{rows}</ul> }
}

/// One count against its cap, as a meter with the numbers beside it.
#[component]
pub fn Usage(label: &'static str, value: i64, cap: i32) -> impl IntoView {
    let level = if cap > 0 && value >= i64::from(cap) {
        "usage full"
    } else {
        "usage"
    };
    view! {
        <div class=level>
            <span class="usage-label">{label}</span>
            <meter min="0" max=cap value=value aria-label=label></meter>
            <span class="usage-count">{format!("{value} / {cap}")}</span>
        </div>
    }
}
