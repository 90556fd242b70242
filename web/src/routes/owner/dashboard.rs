//! `/owner`: the caller's workspaces and their programs with live counts (refreshed every
//! 20 s) and a form to create a program. Each program reads at a glance: its figures link
//! to the filtered queue, "Copy public link" copies the form's address, and until it is
//! set up (notice, content, open sign-ups) a checklist says what is left. A caller who owns no workspace gets the API's 404,
//! shown as "you are not an owner of any workspace".

use std::time::Duration;

use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::components::A;
use shared::api::{Program, Workspace};

use crate::api;
use crate::components::chart::{Activity, Usage};
use crate::components::copy::copy_text;
use crate::components::invitation::UnsentNotice;
use crate::components::set_title;
use crate::components::status::{loaded, Empty, ErrorNotice, RequireSignIn};
use crate::routes::owner::new_program::NewProgram;

#[component]
pub fn Dashboard() -> impl IntoView {
    set_title("Owner console");
    view! {
        <h1>"Owner console"</h1>
        <RequireSignIn><Workspaces/></RequireSignIn>
    }
}

#[component]
fn Workspaces() -> impl IntoView {
    let workspaces = LocalResource::new(|| api::get::<Vec<Workspace>>("/api/owner/workspaces"));
    view! {
        {loaded(workspaces, move |r| match r {
                    Ok(list) => list.into_iter().map(|ws| view! { <WorkspaceSection ws/> }).collect_view().into_any(),
                    Err(e) if e.status == 404 => view! {
                        <Empty>
                            <p>"You are not an owner of any workspace."</p>
                            <p class="muted">"Owners are added by the operator through the maintenance command line, not through this site."</p>
                        </Empty>
                    }.into_any(),
                    Err(err) => view! { <ErrorNotice err/> }.into_any(),
            })}
    }
}

#[component]
fn WorkspaceSection(ws: Workspace) -> impl IntoView {
    let id = ws.id;
    let programs =
        LocalResource::new(move || api::get::<Vec<Program>>(format!("/api/owner/programs?workspaceId={id}")));
    if let Ok(timer) = set_interval_with_handle(move || programs.refetch(), Duration::from_secs(20)) {
        on_cleanup(move || timer.clear());
    }
    view! {
        <section class="workspace" aria-label=ws.name.clone()>
            <div class="row spread">
                <h2>{ws.name.clone()}</h2>
                <A href=format!("/owner/workspaces/{id}/owners") attr:aria-label=format!("Owners of {}", ws.name)>"Owners"</A>
                <A href=format!("/owner/workspaces/{id}/integrations") attr:aria-label=format!("Integrations of {}", ws.name)>"Integrations"</A>
            </div>
            {loaded(programs, move |r| match r {
                        Ok(list) if list.is_empty() => view! {
                            <Empty><p>"No programs yet. Create the first one below."</p></Empty>
                        }.into_any(),
                        Ok(list) => view! {
                            <ul class="cards program-list">
                                {list.into_iter().map(|p| view! { <ProgramCard p/> }).collect_view()}
                            </ul>
                        }.into_any(),
                        Err(err) => view! { <ErrorNotice err/> }.into_any(),
                })}
            <NewProgram workspace_id=id/>
        </section>
    }
}

#[component]
fn ProgramCard(p: Program) -> impl IntoView {
    let open = if p.signup_open {
        ("badge badge-active", "Sign-ups open")
    } else {
        ("badge badge-declined", "Sign-ups closed")
    };
    let access =
        if p.access_enabled { ("badge badge-active", "Access on") } else { ("badge badge-withdrawn", "Access off") };
    let notice = match &p.notice {
        Some(n) => format!("Notice version {}", n.version),
        None => "No notice published".to_owned(),
    };
    let copied = RwSignal::new(None::<bool>);
    let link = format!("{}/waitlist/{}", window().location().origin().unwrap_or_default(), p.slug);
    let copy = move |_| {
        let link = link.clone();
        spawn_local(async move { copied.set(Some(copy_text(&link).await)) });
    };
    let setting_up = p.notice.is_none() || !p.has_content || !p.signup_open;
    let (figures, checklist) = (p.clone(), p.clone());
    let unsent = (p.counts.not_sent > 0)
        .then(|| view! { <UnsentNotice program_id=p.id slug=p.slug.clone() n=p.counts.not_sent/> });
    view! {
        <li class="card program-card">
            <div class="row spread">
                <h3><A href=format!("/owner/programs/{}", p.id)>{p.title.clone().unwrap_or_else(|| p.slug.clone())}</A></h3>
                <span class="row">
                    <span class=open.0>{open.1}</span>
                    <span class=access.0>{access.1}</span>
                </span>
            </div>
            <p class="muted small">{notice}</p>
            <Figures p=figures/>
            {unsent}
            <div class="row">
                <button type="button" class="secondary" on:click=copy>"Copy public link"</button>
                <span class="small" role="status" aria-live="polite">{move || match copied.get() {
                    Some(true) => "Public link copied.",
                    Some(false) => "Could not copy automatically. Open the public form and copy its address.",
                    None => "",
                }}</span>
            </div>
            {setting_up.then(|| view! { <Checklist p=checklist shared=Signal::derive(move || copied.get() == Some(true))/> })}
            <Usage label="Queue" value=p.counts.queue cap=p.queue_cap/>
            <Usage label="This hour" value=p.counts.hour cap=p.hourly_cap/>
            <Usage label="Seats" value=p.counts.seats cap=p.seat_cap/>
            <Activity id=p.id/>
        </li>
    }
}

/// The program at a glance: each figure a link to the queue filtered to the entries behind
/// it (codes not marked sent and expiring ones by the queue's code filter, `?invitation=`;
/// free seats are filled from the waiting). Each link's name adds the program's ("3 waiting in aurora-beta"), so links
/// that read the same go to the same place.
#[component]
fn Figures(p: Program) -> impl IntoView {
    let c = &p.counts;
    let free = (i64::from(p.seat_cap) - c.seats).max(0);
    let figures = [
        (c.waiting, ("waiting", "waiting"), "state=waiting", false),
        (c.selected, ("selected without a code", "selected without a code"), "state=selected", c.selected > 0),
        (c.not_sent, ("code not marked sent", "codes not marked sent"), "invitation=unsent", c.not_sent > 0),
        (
            c.expiring_soon,
            ("code expiring within 48 h", "codes expiring within 48 h"),
            "invitation=expiring",
            c.expiring_soon > 0,
        ),
        (c.active, ("redeemed", "redeemed"), "state=active", false),
        (free, ("seat free", "seats free"), "state=waiting", false),
    ];
    let (id, slug) = (p.id, p.slug.clone());
    view! {
        <ul class="figures" aria-label=format!("{slug} at a glance")>
            {figures.into_iter().map(|(n, (one, many), filter, warn)| {
                let noun = if n == 1 { one } else { many };
                view! {
                    <li class:warn=warn>
                        <A href=format!("/owner/programs/{id}/queue?{filter}") attr:aria-label=format!("{n} {noun} in {slug}")>
                            <span><strong>{n}</strong>{format!(" {noun}")}</span>
                        </A>
                    </li>
                }
            }).collect_view()}
        </ul>
    }
}

/// A new program's next steps, each ticked once done and linking to where it is done.
#[component]
fn Checklist(p: Program, #[prop(into)] shared: Signal<bool>) -> impl IntoView {
    let (id, slug) = (p.id, p.slug.clone());
    let steps = [
        ("Give it a title", format!("/owner/programs/{id}"), Signal::from(p.title.is_some())),
        ("Publish the notice", format!("/owner/programs/{id}/notice"), Signal::from(p.notice.is_some())),
        ("Write the content", format!("/owner/programs/{id}/content"), Signal::from(p.has_content)),
        ("Open sign-ups", format!("/owner/programs/{id}"), Signal::from(p.signup_open)),
        ("Share the public link", format!("/waitlist/{slug}"), shared),
    ];
    view! {
        <div class="checklist">
            <h4>"Getting started"</h4>
            <ol>
                {steps.into_iter().map(|(label, href, done)| view! {
                    <li class:done=move || done.get()>
                        <span aria-hidden="true">{move || if done.get() { "✓ " } else { "○ " }}</span>
                        <A href=href attr:aria-label=format!("{label} for {slug}")>{label}</A>
                        {move || if done.get() { " — done" } else { " — to do" }}
                    </li>
                }).collect_view()}
            </ol>
        </div>
    }
}
