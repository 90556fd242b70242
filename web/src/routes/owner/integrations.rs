//! `/owner/workspaces/:id/integrations`: webhook endpoints (with their delivery log and
//! retry), API keys and the admission hook's secret. Every secret is shown once, right
//! after it is made, with a copy button; it is kept only in this page's memory.

use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::components::A;
use serde_json::json;
use shared::integrations::{
    AdmissionHookStatus, ApiKey, ApiKeyScope, ApiKeyWithSecret, DeliveriesResponse, HookSecret, Webhook,
    WebhookEventType, WebhookWithSecret,
};
use shared::ErrorCode;
use uuid::Uuid;

use crate::api::{self, ApiError};
use crate::components::confirm::ConfirmButton;
use crate::components::copy::CopyField;
use crate::components::status::{loaded, Empty, ErrorNotice, RequireSignIn, Success};
use crate::components::table::ScrollTable;
use crate::components::text::time;
use crate::components::{retry_then_refetch, set_title};
use crate::routes::owner::uuid_param;

#[component]
pub fn Integrations() -> impl IntoView {
    set_title("Integrations");
    let id = uuid_param("id");
    view! {
        <RequireSignIn>
            <p class="crumbs"><A href="/owner" exact=true>"← All programs"</A></p>
            <h1>"Integrations"</h1>
            {move || id.get().map(|ws| view! { <Webhooks ws/><ApiKeys ws/><Hook ws/> })}
        </RequireSignIn>
    }
}

/// A secret just made: shown until the page is left, with a copy button.
#[component]
fn Secret(secret: RwSignal<Option<String>>, id: &'static str, label: &'static str) -> impl IntoView {
    move || {
        secret.get().map(|value| {
            view! {
                <Success><p>"Copy it now: it is shown this once and cannot be shown again."</p></Success>
                <CopyField value id label/>
            }
        })
    }
}

#[component]
fn Webhooks(ws: Uuid) -> impl IntoView {
    let base = format!("/api/owner/workspaces/{ws}/webhooks");
    let list_path = base.clone();
    let hooks = LocalResource::new(move || api::get::<Vec<Webhook>>(list_path.clone()));
    let url = RwSignal::new(String::new());
    let secret = RwSignal::new(None::<String>);
    let failure = RwSignal::new(None::<ApiError>);
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let (path, body) = (base.clone(), json!({"url": url.get_untracked(), "events": WebhookEventType::ALL}));
        spawn_local(async move {
            match api::post::<_, WebhookWithSecret>(path, &body).await {
                Ok(made) => {
                    secret.set(Some(made.secret));
                    failure.set(None);
                    url.set(String::new());
                    hooks.refetch();
                }
                Err(e) if e.api_code() == Some(ErrorCode::WebhookLimit) => failure
                    .set(Some(e.explained("A workspace can have 20 endpoints. Remove one before adding another."))),
                Err(e) if e.status == 400 => failure.set(Some(
                    e.explained("Use an https URL that reaches the public internet (not a private or local address)."),
                )),
                Err(e) => failure.set(Some(e)),
            }
        });
    };
    view! {
        <section class="card">
            <h2>"Webhooks"</h2>
            <p class="muted">"Signed with Standard Webhooks: verify the webhook-signature header with the endpoint's secret. Payloads hold ids and states only."</p>
            {loaded(hooks, move |r| match r {
                Ok(list) if list.is_empty() => view! { <Empty><p>"No endpoints yet."</p></Empty> }.into_any(),
                Ok(list) => view! {
                    <ul class="plain-list">
                        {list.into_iter().map(|h| view! { <Endpoint ws h secret reload=Callback::new(move |()| hooks.refetch())/> }).collect_view()}
                    </ul>
                }.into_any(),
                Err(err) => view! { <ErrorNotice err/> }.into_any(),
            })}
            <form class="form" novalidate on:submit=submit>
                <label for="hook-url">"Endpoint URL (receives every event type)"</label>
                <input id="hook-url" type="url" autocomplete="off" spellcheck="false" maxlength="2000"
                    prop:value=move || url.get() on:input=move |ev| url.set(event_target_value(&ev))/>
                <button type="submit">"Add endpoint"</button>
            </form>
            {move || failure.get().map(|err| view! { <ErrorNotice err/> })}
            <Secret secret id="hook-secret" label="Signing secret"/>
        </section>
    }
}

#[component]
fn Endpoint(ws: Uuid, h: Webhook, secret: RwSignal<Option<String>>, reload: Callback<()>) -> impl IntoView {
    let path = format!("/api/owner/workspaces/{ws}/webhooks/{}", h.id);
    let failure = RwSignal::new(None::<ApiError>);
    let show_log = RwSignal::new(false);
    let (toggle_path, rotate_path, log_path) = (path.clone(), format!("{path}/rotate-secret"), path.clone());
    let enabled = h.enabled;
    let toggle = move |_| {
        let path = toggle_path.clone();
        spawn_local(async move {
            match api::patch::<_, Webhook>(path, &json!({"enabled": !enabled})).await {
                Ok(_) => reload.run(()),
                Err(e) => failure.set(Some(e)),
            }
        });
    };
    let rotate = Callback::new(move |()| {
        let path = rotate_path.clone();
        spawn_local(async move {
            match api::post::<_, WebhookWithSecret>(path, &json!({})).await {
                Ok(made) => {
                    secret.set(Some(made.secret));
                    reload.run(());
                }
                Err(e) => failure.set(Some(e)),
            }
        });
    });
    let state = match (&h.disabled_reason, h.enabled) {
        (_, true) => "Enabled".to_owned(),
        (Some(r), false) if r == "failing" => "Disabled: failing for 3 days".to_owned(),
        (Some(r), false) if r == "gone" => "Disabled: the receiver answered 410 Gone".to_owned(),
        _ => "Disabled".to_owned(),
    };
    view! {
        <li class="card">
            <p class="mono">{h.url.clone()}</p>
            <p class="small">{state}{h.previous_secret_until.map(|t| format!(" · previous secret signs until {}", time(&t)))}</p>
            <div class="actions">
                <button type="button" class="secondary" on:click=toggle>{if enabled { "Disable" } else { "Enable" }}</button>
                <ConfirmButton label="Rotate secret" question="Make a new signing secret? The current one keeps signing for 24 hours." confirm_label="Rotate" pending=Signal::from(false) on_confirm=rotate/>
                <button type="button" class="secondary" aria-expanded=move || show_log.get().to_string() on:click=move |_| show_log.update(|s| *s = !*s)>"Delivery log"</button>
            </div>
            {move || failure.get().map(|err| view! { <ErrorNotice err/> })}
            {move || show_log.get().then(|| view! { <DeliveryLog path=log_path.clone()/> })}
        </li>
    }
}

#[component]
fn DeliveryLog(path: String) -> impl IntoView {
    let deliveries = format!("{path}/deliveries");
    let list_path = deliveries.clone();
    let log = LocalResource::new(move || api::get::<DeliveriesResponse>(list_path.clone()));
    let retry = retry_then_refetch(deliveries, log);
    view! {
        {loaded(log, move |r| match r {
            Ok(page) if page.deliveries.is_empty() => view! { <Empty><p>"No deliveries yet."</p></Empty> }.into_any(),
            Ok(page) => {
                let rows = page.deliveries.into_iter().map(|d| {
                    let id = d.id;
                    let attempts = d.attempts.iter().map(|a| format!("{} {} {} ms", time(&a.at), a.status_code.map(|s| s.to_string()).unwrap_or_else(|| a.outcome.clone()), a.latency_ms)).collect::<Vec<_>>().join("; ");
                    view! {
                        <tr>
                            <td><span class="mono">{d.message_id}</span><br/>{d.event_type.as_str()}</td>
                            <td>{d.state}</td>
                            <td class="small">{attempts}</td>
                            <td><button type="button" class="secondary" on:click=move |_| retry.run(id)>"Retry"</button></td>
                        </tr>
                    }
                }).collect_view();
                view! {
                    <ScrollTable label="Deliveries">
                        <thead><tr><th scope="col">"Event"</th><th scope="col">"State"</th><th scope="col">"Attempts"</th><th scope="col"></th></tr></thead>
                        <tbody>{rows}</tbody>
                    </ScrollTable>
                }
                .into_any()
            }
            Err(err) => view! { <ErrorNotice err/> }.into_any(),
        })}
    }
}

#[component]
fn ApiKeys(ws: Uuid) -> impl IntoView {
    let base = format!("/api/owner/workspaces/{ws}/api-keys");
    let list_path = base.clone();
    let keys = LocalResource::new(move || api::get::<Vec<ApiKey>>(list_path.clone()));
    let name = RwSignal::new(String::new());
    let entries = RwSignal::new(false);
    let secret = RwSignal::new(None::<String>);
    let failure = RwSignal::new(None::<ApiError>);
    let create_path = base.clone();
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let mut scopes = vec![ApiKeyScope::AccessRead];
        if entries.get_untracked() {
            scopes.push(ApiKeyScope::EntriesRead);
        }
        let (path, body) = (create_path.clone(), json!({"name": name.get_untracked(), "scopes": scopes}));
        spawn_local(async move {
            match api::post::<_, ApiKeyWithSecret>(path, &body).await {
                Ok(made) => {
                    secret.set(Some(made.secret));
                    failure.set(None);
                    keys.refetch();
                }
                Err(e) => failure.set(Some(e)),
            }
        });
    };
    view! {
        <section class="card">
            <h2>"API keys"</h2>
            <p class="muted">"For your product's server: GET /api/v1/programs/{slug}/access?clerkUserId=… with Authorization: Bearer <key>."</p>
            {loaded(keys, move |r| match r {
                Ok(list) if list.is_empty() => view! { <Empty><p>"No keys yet."</p></Empty> }.into_any(),
                Ok(list) => view! {
                    <ul class="plain-list">
                        {list.into_iter().map(|k| {
                            let path = format!("{base}/{}", k.id);
                            let revoke = Callback::new(move |()| {
                                let path = path.clone();
                                spawn_local(async move {
                                    let _ = api::delete::<ApiKey>(path).await;
                                    keys.refetch();
                                });
                            });
                            let scopes = k.scopes.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ");
                            let used = k.last_used_at.map(|t| format!("last used {}", time(&t))).unwrap_or_else(|| "never used".to_owned());
                            view! {
                                <li class="row spread">
                                    <span><strong>{k.name}</strong>" "<span class="mono">{k.prefix}"…"</span>" · "{scopes}" · "{used}</span>
                                    {match k.revoked_at {
                                        Some(t) => view! { <span>{format!("Revoked {}", time(&t))}</span> }.into_any(),
                                        None => view! { <ConfirmButton label="Revoke" question="Revoke this key? Calls with it are refused from now on." confirm_label="Revoke" pending=Signal::from(false) on_confirm=revoke/> }.into_any(),
                                    }}
                                </li>
                            }
                        }).collect_view()}
                    </ul>
                }.into_any(),
                Err(err) => view! { <ErrorNotice err/> }.into_any(),
            })}
            <form class="form" novalidate on:submit=submit>
                <label for="key-name">"Key name"</label>
                <input id="key-name" type="text" maxlength="80" autocomplete="off" prop:value=move || name.get() on:input=move |ev| name.set(event_target_value(&ev))/>
                <label><input type="checkbox" prop:checked=move || entries.get() on:change=move |ev| entries.set(event_target_checked(&ev))/>" Also list entries (entries:read)"</label>
                <button type="submit">"Create key"</button>
            </form>
            {move || failure.get().map(|err| view! { <ErrorNotice err/> })}
            <Secret secret id="api-key-secret" label="API key"/>
        </section>
    }
}

#[component]
fn Hook(ws: Uuid) -> impl IntoView {
    let path = format!("/api/owner/workspaces/{ws}/admission-hook");
    let status_path = path.clone();
    let status = LocalResource::new(move || api::get::<AdmissionHookStatus>(status_path.clone()));
    let secret = RwSignal::new(None::<String>);
    let failure = RwSignal::new(None::<ApiError>);
    let make = Callback::new(move |()| {
        let path = format!("{path}/secret");
        spawn_local(async move {
            match api::post::<_, HookSecret>(path, &json!({})).await {
                Ok(made) => {
                    secret.set(Some(made.secret));
                    status.refetch();
                }
                Err(e) => failure.set(Some(e)),
            }
        });
    });
    view! {
        <section class="card">
            <h2>"Sign-up admission hook"</h2>
            <p class="muted">"Register this as your identity provider's before-user-created hook: it allows a sign-up only for an email with an open invitation or an active grant."</p>
            {loaded(status, move |r| match r {
                Ok(s) => view! {
                    <p class="mono">{s.path}</p>
                    <p class="small">{s.created_at.map(|t| format!("Secret set {}", time(&t))).unwrap_or_else(|| "No secret yet.".to_owned())}</p>
                }.into_any(),
                Err(err) => view! { <ErrorNotice err/> }.into_any(),
            })}
            <ConfirmButton label="New hook secret" question="Make a new hook secret? Any previous one stops working at once." confirm_label="Make secret" pending=Signal::from(false) on_confirm=make/>
            {move || failure.get().map(|err| view! { <ErrorNotice err/> })}
            <Secret secret id="hook-admit-secret" label="Hook secret"/>
        </section>
    }
}
