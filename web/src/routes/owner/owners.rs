//! `/owner/workspaces/:id/owners`: who owns the workspace now and the history of changes,
//! each owner by the name (or email) the sign-in service knows, with the Clerk user id the
//! maintenance command line takes underneath. Read-only: membership changes only through
//! the audited maintenance command line.

use leptos::prelude::*;
use shared::api::OwnersResponse;

use crate::api::{self, ApiError};
use crate::components::set_title;
use crate::components::status::{loaded, Empty, ErrorNotice, RequireSignIn};
use crate::components::table::ScrollTable;
use crate::components::text::{label, time};
use crate::routes::owner::uuid_param;
use leptos_router::components::A;

#[component]
pub fn Owners() -> impl IntoView {
    set_title("Workspace owners");
    let id = uuid_param("id");
    let owners = LocalResource::new(move || {
        let path = id.get().map(|id| format!("/api/owner/workspaces/{id}/owners"));
        async move { api::get::<OwnersResponse>(path.ok_or_else(ApiError::not_found)?).await }
    });
    view! {
        <RequireSignIn>
            <p class="crumbs"><A href="/owner" exact=true>"← All programs"</A></p>
            <h1>"Owners"</h1>
            <p class="muted">"Owners are added and removed by the operator with the maintenance command line; each change is recorded with an approval reference."</p>
            {loaded(owners, move |r| match r {
                        Ok(r) => view! { <OwnerTables r/> }.into_any(),
                        Err(err) => view! { <ErrorNotice err/> }.into_any(),
                })}
        </RequireSignIn>
    }
}

#[component]
fn OwnerTables(r: OwnersResponse) -> impl IntoView {
    let current = r
        .owners
        .into_iter()
        .map(|o| {
            view! {
                <li class="row spread">
                    <span><OwnerName name=o.name/><br/><span class="muted small mono">{o.clerk_user_id}</span></span>
                    <span>{if o.active { "Active" } else { "Removed" }}</span>
                </li>
            }
        })
        .collect_view();
    let history = if r.history.is_empty() {
        view! { <Empty><p>"No membership changes recorded."</p></Empty> }.into_any()
    } else {
        let rows = r
            .history
            .into_iter()
            .map(|h| {
                view! {
                    <tr>
                        <td class="nowrap">{time(&h.at)}</td>
                        <td>{label(&h.action)}</td>
                        <td><OwnerName name=h.name/>" "<span class="muted small mono">{h.clerk_user_id}</span></td>
                        <td>{h.approval_ref}</td>
                    </tr>
                }
            })
            .collect_view();
        view! {
            <ScrollTable label="Membership history">
                <caption class="sr-only">"Membership history"</caption>
                <thead><tr><th scope="col">"When"</th><th scope="col">"Change"</th><th scope="col">"Owner"</th><th scope="col">"Approval"</th></tr></thead>
                <tbody>{rows}</tbody>
            </ScrollTable>
        }
        .into_any()
    };
    view! {
        <section class="card">
            <h2>"Current owners"</h2>
            <ul class="plain-list">{current}</ul>
        </section>
        <section class="card">
            <h2>"History"</h2>
            {history}
        </section>
    }
}

/// The owner's name, or a plain "Name unavailable" when the sign-in service could not say.
#[component]
fn OwnerName(name: Option<String>) -> impl IntoView {
    match name {
        Some(name) => view! { <strong class="owner-name">{name}</strong> }.into_any(),
        None => view! { <span class="muted">"Name unavailable"</span> }.into_any(),
    }
}
