//! Building and running the server. `Application::build` binds (port 0 works, for
//! tests; `build_with_listener` takes a bound one), `port()` tells where, `run()` serves
//! until SIGTERM and then shuts down gracefully ([`crate::shutdown`]). Routes are registered once, in [`register`], in audience order: health,
//! the API (public, recipient, owner); the OpenAPI document is collected from that same
//! registration. The SPA comes last.

use crate::config::Settings;
use crate::identity::Identity;
use crate::shutdown::{self, Shutdown};
use crate::state::AppState;
use crate::{db, http, openapi, routes};
use actix_web::dev::{Server, ServiceFactory, ServiceRequest};
use actix_web::middleware::from_fn;
use actix_web::{web, App, HttpServer};
use std::net::TcpListener;
use std::time::Duration;
use utoipa_actix_web::{scope, AppExt, UtoipaApp};

pub struct Application {
    port: u16,
    server: Server,
    metrics: Option<(u16, Server)>,
    state: web::Data<AppState>,
}

impl Application {
    pub async fn build(settings: Settings) -> anyhow::Result<Self> {
        let listener = TcpListener::bind(&settings.bind_addr)?;
        Self::build_with_listener(settings, listener).await
    }

    /// Serves on a listener the caller bound, ignoring `bind_addr`: for tests that must
    /// know the server's origin before writing the settings (`APP_ORIGINS`).
    pub async fn build_with_listener(settings: Settings, listener: TcpListener) -> anyhow::Result<Self> {
        db::migrate(&settings.database_url).await?;
        let shares = PoolShares::of(settings.db_pool_size, http_workers());
        let pool = db::pool(&settings.database_url, shares.main)?;
        let identity = Identity::new(&settings)?;
        let port = listener.local_addr()?.port();
        let metrics_listener = settings.metrics_addr.as_ref().map(TcpListener::bind).transpose()?;
        tracing::info!(web_app = %crate::assets::Assets::new(settings.static_dir.as_deref()).describe(), "serving the SPA");
        let keyring = crate::secrets::Keyring::new(settings.secrets_keys.clone(), Some(&settings.hmac_key));
        if keyring.sealing_kid().is_none() {
            tracing::warn!("SECRETS_KEYS is not set: webhook and hook secrets are sealed under SIGNUP_BINDING_KEY (development only)");
        }
        let state = web::Data::new(AppState {
            admitter: crate::group::Admitter::new(pool.clone()),
            hits: crate::hits::Hits::new(pool.clone()),
            settings,
            redemptions: crate::gates::GatedPool::new(pool.clone()),
            pool,
            identity: std::sync::Arc::new(identity),
            keyring,
            shutdown: Shutdown::new(),
        });
        spawn_pruner(&state);
        spawn_search_merger(&state);
        spawn_draw_closer(&state);
        crate::outbox::spawn(&state);
        let metrics = match metrics_listener {
            Some(l) => Some((l.local_addr()?.port(), routes::metrics::serve(l, state.clone())?)),
            None => None,
        };
        let server = serve(listener, state.clone(), shares.per_worker)?;
        Ok(Application { port, server, metrics, state })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// The port of the separate `/metrics` listener, when `METRICS_ADDR` is set.
    pub fn metrics_port(&self) -> Option<u16> {
        self.metrics.as_ref().map(|(port, _)| *port)
    }

    /// Serves until SIGTERM or SIGINT, then shuts down gracefully.
    pub async fn run(self) -> std::io::Result<()> {
        self.run_until(shutdown::signal()).await
    }

    /// Serves until `stop` resolves, then shuts down gracefully.
    pub async fn run_until(self, stop: impl std::future::Future<Output = ()>) -> std::io::Result<()> {
        let mut servers = vec![self.server];
        servers.extend(self.metrics.map(|(_, metrics)| metrics));
        shutdown::serve_until(servers, &self.state.shutdown, &self.state.pool, stop).await
    }
}

/// Every documented route, registered once: the server mounts them and the OpenAPI
/// document is collected from the same calls.
pub fn register<T>(app: UtoipaApp<T>) -> UtoipaApp<T>
where
    T: ServiceFactory<ServiceRequest, Config = (), Error = actix_web::Error, InitError = ()>,
{
    app.service(routes::health::healthz).service(routes::health::readyz).service(
        scope("/api")
            .configure(routes::api)
            .wrap(from_fn(http::middleware::no_store))
            .wrap(from_fn(http::middleware::origin_guard))
            .wrap(from_fn(http::rate_limit::fields))
            .wrap(from_fn(http::methods::head_as_get))
            .default_service(web::to(http::methods::unmatched)),
    )
}

/// Each HTTP worker gets a pool of its own, made on the worker's thread, so a request's
/// queries are written and their answers read by the thread that serves the request: on
/// the main runtime's pool every query crossed to another thread and back, and at low load
/// each crossing woke a sleeping thread (issue 28: CPU per private read, a quarter of the
/// API's at one client). The pool is the worker's alone, so a worker that stops at
/// shutdown once its own requests are done takes no one else's connections with it
/// (`db::connect`). Batches, redemptions and background work keep the main runtime's pool.
fn serve(listener: TcpListener, state: web::Data<AppState>, per_worker: usize) -> anyhow::Result<Server> {
    let server = HttpServer::new(move || {
        let (app, document) = register(App::new().into_utoipa_app().openapi(openapi::base())).split_for_parts();
        openapi::publish(document);
        // The main pool was made from the same settings by the same function, so this
        // cannot fail where that succeeded (the factory cannot answer an error).
        let pool = db::pool(&state.settings.database_url, per_worker).expect("the main pool's settings");
        app.app_data(web::Data::new(state.for_worker(pool)))
            .app_data(http::json_config())
            .app_data(http::payload_config())
            .app_data(http::path_config())
            .app_data(http::query_config())
            .wrap(from_fn(http::middleware::request_log))
            .wrap(http::security_headers::SecurityHeaders::new(&state.settings))
            .configure(|cfg| routes::spa::configure(cfg, state.settings.static_dir.as_deref()))
    })
    .workers(http_workers())
    .disable_signals()
    .shutdown_timeout(shutdown::DRAIN_TIMEOUT.as_secs())
    .keep_alive(Duration::from_secs(30))
    .listen(listener)?
    .run();
    Ok(server)
}

/// One HTTP worker per core.
fn http_workers() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2)
}

/// How `DB_POOL_SIZE` is shared out: the HTTP workers' pools hold that many connections
/// between them (evenly, each at least two), where requests run their statements; the
/// main runtime's pool, where the admission batches, the redemptions
/// (`AppState::redemptions`: one workspace's at most half of it) and the background work
/// run, a quarter as many again (at least four) — a batch serves many requests on one
/// connection, and redemptions into one program take turns on its lock, so it needs few.
/// Each pool opens its connections only as it needs them. (Measured, issue 28: four
/// connections a worker instead of eight cost the private read at 64 clients a tenth of
/// its rate, waiting for a connection.)
#[derive(Debug, PartialEq, Eq)]
struct PoolShares {
    main: usize,
    per_worker: usize,
}

impl PoolShares {
    fn of(size: usize, workers: usize) -> Self {
        PoolShares { main: size.div_ceil(4).max(4), per_worker: size.div_ceil(workers.max(1)).max(2) }
    }
}

/// Closes lottery draws whose entries are due to close (`usecases::draws::close_due`): it
/// looks every second, or sooner when the next close is nearer, so a draw is frozen well
/// within the margin before its beacon round. Every instance runs one; the draw's row
/// lock makes a close happen once.
fn spawn_draw_closer(state: &web::Data<AppState>) {
    let pool = state.pool.clone();
    state.shutdown.spawn_worker("draw closer", move |stop| async move {
        loop {
            let wait = match crate::usecases::draws::close_due(&pool).await {
                Ok((_, next)) => next.map_or(Duration::from_secs(1), |n| n.min(Duration::from_secs(1))),
                Err(e) => {
                    tracing::warn!(error = %e, "closing due draws failed");
                    Duration::from_secs(1)
                }
            };
            tokio::select! {
                _ = stop.cancelled() => break,
                _ = tokio::time::sleep(wait.max(Duration::from_millis(20))) => {}
            }
        }
    });
}

/// Merges the queue search index's pending list twice a second, until shutdown (V143:
/// otherwise a signup merges it, under its program's lock). Every instance runs one; a
/// merge that finds another in progress waits for it, then finds little to do.
fn spawn_search_merger(state: &web::Data<AppState>) {
    let pool = state.pool.clone();
    state.shutdown.spawn_worker("search index merger", move |stop| async move {
        let mut tick = tokio::time::interval(Duration::from_millis(500));
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut failing = false;
        loop {
            tokio::select! {
                _ = stop.cancelled() => break,
                _ = tick.tick() => {}
            }
            let merged = match pool.get().await {
                Ok(client) => db::entries::merge_search_index(&client).await.map(drop),
                Err(e) => Err(e.into()),
            };
            // Said once when merging starts failing (a database restarting or failing over
            // would otherwise log it twice a second) and once when it works again.
            match (merged, failing) {
                (Err(e), false) => {
                    tracing::warn!(error = %e, "merging the search index failed; retrying twice a second");
                    failing = true;
                }
                (Ok(()), true) => {
                    tracing::info!("merging the search index works again");
                    failing = false;
                }
                _ => {}
            }
        }
    });
}

/// Drops stale rate-limit windows and used proof-of-work solutions of expired challenges
/// every few minutes, until shutdown.
fn spawn_pruner(state: &web::Data<AppState>) {
    let pool = state.pool.clone();
    state.shutdown.spawn_worker("rate-limit pruner", move |stop| async move {
        let mut tick = tokio::time::interval(Duration::from_secs(300));
        loop {
            tokio::select! {
                _ = stop.cancelled() => break,
                _ = tick.tick() => {}
            }
            let pruned = match pool.get().await {
                Ok(client) => match db::rate_limits::prune(&client).await {
                    Ok(_) => db::pow::prune(&client).await.map(drop),
                    Err(e) => Err(e),
                },
                Err(e) => Err(e.into()),
            };
            if let Err(e) = pruned {
                tracing::warn!(error = %e, "rate-limit pruning failed");
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::PoolShares;

    #[test]
    fn the_workers_share_the_pool_size_and_the_main_pool_gets_a_quarter_again() {
        assert_eq!(PoolShares::of(16, 2), PoolShares { main: 4, per_worker: 8 });
        assert_eq!(PoolShares::of(16, 3), PoolShares { main: 4, per_worker: 6 });
        assert_eq!(PoolShares::of(40, 4), PoolShares { main: 10, per_worker: 10 });
        assert_eq!(PoolShares::of(1, 2), PoolShares { main: 4, per_worker: 2 }, "each pool keeps a floor");
    }
}
