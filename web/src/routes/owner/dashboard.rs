//! `/owner`: the caller's workspaces and their programs with live counts (refreshed every
//! 20 s) and a form to create a program. A caller who owns no workspace gets the API's 404,
//! shown as "you are not an owner of any workspace".

use std::time::Duration;

use leptos::prelude::*;
use leptos_router::components::A;
use shared::api::{Program, Workspace};

use crate::api;
use crate::components::chart::{Activity, Usage};
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
    view! {
        <li class="card program-card">
            <div class="row spread">
                <h3><A href=format!("/owner/programs/{}", p.id)>{p.slug.clone()}</A></h3>
                <span class="row">
                    <span class=open.0>{open.1}</span>
                    <span class=access.0>{access.1}</span>
                </span>
            </div>
            <p class="muted small">{notice}</p>
            <Usage label="Queue" value=p.counts.queue cap=p.queue_cap/>
            <Usage label="This hour" value=p.counts.hour cap=p.hourly_cap/>
            <Usage label="Seats" value=p.counts.seats cap=p.seat_cap/>
            <Activity id=p.id/>
        </li>
    }
}
