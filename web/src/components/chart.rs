//! Two small charts for a program: sign-ups per UTC hour over the last day (inline SVG
//! bars) and the state funnel (proportional bars), from `GET …/programs/{id}/stats`.
//! Both carry their numbers as text too.

use leptos::prelude::*;
use shared::api::{IntakeHour, ProgramStats};
use shared::EntryState;
use uuid::Uuid;

use crate::api;
use crate::components::status::loaded;
use crate::components::text::label;

/// A program's intake chart and state funnel, loaded on their own.
#[component]
pub fn Activity(id: Uuid) -> impl IntoView {
    let stats = LocalResource::new(move || api::get::<ProgramStats>(format!("/api/owner/programs/{id}/stats")));
    loaded(stats, move |r| match r {
        Ok(s) => {
            let states =
                EntryState::ALL.iter().map(|k| (k.to_string(), s.states.get(k).copied().unwrap_or(0))).collect();
            // Split by source (issue 15): one chart at a time, chosen by `?ref=` source.
            let all = last_day(&s.intake_hours);
            let per_source: Vec<(String, Vec<i64>)> = s
                .intake_sources
                .iter()
                .map(|src| (src.source.clone().unwrap_or_default(), last_day(&src.hours)))
                .collect();
            let choice = RwSignal::new(None::<usize>);
            let options = per_source.clone();
            let counts = move || match choice.get() {
                Some(i) => per_source.get(i).map(|(_, c)| c.clone()).unwrap_or_default(),
                None => all.clone(),
            };
            let split = (!options.is_empty()).then(|| {
                view! {
                    <label for=format!("intake-source-{id}") class="small">"Source (ref)"</label>
                    <select id=format!("intake-source-{id}") on:change=move |ev| choice.set(event_target_value(&ev).parse().ok())>
                        <option value="">"All sources"</option>
                        {options.iter().enumerate().map(|(i, (name, _))| {
                            let text = if name.is_empty() { "No ref".to_owned() } else { name.clone() };
                            view! { <option value=i.to_string()>{text}</option> }
                        }).collect_view()}
                    </select>
                }
            });
            view! {
                <p class="chart-title">"Sign-ups per hour (UTC)"</p>
                {split}
                {move || view! { <IntakeChart counts=counts()/> }}
                <p class="chart-title">"Entries by state"</p>
                <Funnel states/>
            }
            .into_any()
        }
        Err(_) => view! { <p class="muted">"Charts are unavailable right now."</p> }.into_any(),
    })
}

/// 24 hourly counts ending with the current UTC hour; hours the API did not list are 0.
fn last_day(hours: &[IntakeHour]) -> Vec<i64> {
    const HOUR: f64 = 3_600_000.0;
    let now = (js_sys::Date::now() / HOUR).floor();
    let mut counts = vec![0; 24];
    for h in hours {
        let ago = now - (js_sys::Date::parse(&h.bucket_start) / HOUR).floor();
        if (0.0..24.0).contains(&ago) {
            counts[23 - ago as usize] += h.admitted;
        }
    }
    counts
}

/// `counts` holds one value per hour, oldest first, the last one the current hour.
#[component]
pub fn IntakeChart(counts: Vec<i64>) -> impl IntoView {
    let peak = counts.iter().copied().max().unwrap_or(0).max(1);
    let total: i64 = counts.iter().sum();
    // Integer coordinates in tenths of a unit: no float formatting in the bundle.
    let slot = 2400 / counts.len().max(1) as i64;
    let bars = counts
        .iter()
        .enumerate()
        .map(|(i, &c)| {
            let h = if c > 0 { (c * 600 / peak).max(20) } else { 0 };
            view! {
                <rect x=(i as i64 * slot + 10).to_string() y=(640 - h).to_string()
                    width=(slot - 20).max(10).to_string() height=h.to_string() rx="10"></rect>
            }
        })
        .collect_view();
    let summary = format!(
        "Sign-ups per hour over the last {} hours: {total} in total, at most {peak} in one hour.",
        counts.len()
    );
    view! {
        <figure class="chart">
            <svg viewBox="0 0 2400 660" role="img" aria-label=summary.clone() preserveAspectRatio="none">
                <line x1="0" y1="645" x2="2400" y2="645" class="axis"></line>
                <g class="bars">{bars}</g>
            </svg>
            <figcaption>
                <span>{format!("{} h ago", counts.len())}</span>
                <span>{if total == 1 { "1 sign-up".to_owned() } else { format!("{total} sign-ups") }}</span>
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
            let pct = if n > 0 { (n * 100 / peak).max(2) } else { 0 };
            view! {
                <li>
                    <span class="funnel-label">{label(&state)}</span>
                    <span class="funnel-track" aria-hidden="true">
                        <span class="funnel-bar" style:width=format!("{pct}%")></span>
                    </span>
                    <span class="funnel-count">{n}</span>
                </li>
            }
        })
        .collect_view();
    view! { <ul class="funnel" aria-label="Entries by state">{rows}</ul> }
}

/// One count against its cap, as a meter with the numbers beside it. A styled `role="meter"`
/// rather than `<meter>`: its track can carry a visible outline in both themes. The width is
/// set through the style object (`style:`), which the Content-Security-Policy allows.
#[component]
pub fn Usage(label: &'static str, value: i64, cap: i32) -> impl IntoView {
    let full = cap > 0 && value >= i64::from(cap);
    let pct = if cap > 0 { (value.clamp(0, i64::from(cap)) * 100) / i64::from(cap) } else { 0 };
    view! {
        <div class=if full { "usage full" } else { "usage" }>
            <span class="usage-label">{label}</span>
            <span class="meter" role="meter" aria-label=label aria-valuemin="0" aria-valuemax=cap
                aria-valuenow=value aria-valuetext=format!("{value} of {cap}")>
                <span class="meter-fill" style:width=format!("{pct}%")></span>
            </span>
            <span class="usage-count">{format!("{value} / {cap}")}</span>
        </div>
    }
}
