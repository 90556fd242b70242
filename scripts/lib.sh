# Shared helpers for the project's scripts (sourced, not run).
# Policy: each step is idempotent and says what it does; anything missing is installed
# from the package registries only (rustup targets, crates.io, npm, Debian).

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export PATH="$root/node_modules/.bin:$HOME/.cargo/bin:$PATH"

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

apt_updated=""
apt_install() { # packages...
  if [[ -z "$apt_updated" ]]; then
    say "apt-get update"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
    apt_updated=1
  fi
  say "apt-get install $*"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

# The PostgreSQL server URL without a database name. Uses DATABASE_SERVER_URL, or the
# server part of DATABASE_URL, or the local cluster; starts the local cluster when it
# is down, and creates a project-local cluster (.local/pg, port 5499) when there is no
# server at all.
pg_server_url() {
  local url="${DATABASE_SERVER_URL:-}"
  if [[ -z "$url" && -n "${DATABASE_URL:-}" ]]; then url="${DATABASE_URL%/*}"; fi
  if [[ -n "$url" ]]; then
    if pg_isready -q -d "$url/postgres" -t 5; then echo "$url"; return; fi
    say "the PostgreSQL at DATABASE_URL is not reachable; using a local one"
  fi
  url="postgres://postgres@127.0.0.1:5432"
  if pg_isready -q -h 127.0.0.1 -p 5432 -t 2; then echo "$url"; return; fi
  if command -v pg_lsclusters >/dev/null && [[ -n "$(pg_lsclusters -h 2>/dev/null)" ]]; then
    local version
    version="$(pg_lsclusters -h | awk '{print $1; exit}')"
    say "starting the local PostgreSQL $version cluster"
    pg_ctlcluster --skip-systemctl-redirect "$version" main start >&2 || true
    for _ in $(seq 30); do pg_isready -q -h 127.0.0.1 -p 5432 -t 1 && { echo "$url"; return; }; sleep 1; done
  fi
  local bin
  bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
  [[ -x "$bin/postgres" ]] || { apt_install postgresql; bin="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)"; }
  local data="$root/.local/pg" port=5499
  url="postgres://postgres@127.0.0.1:$port"
  if pg_isready -q -h 127.0.0.1 -p "$port" -t 1; then echo "$url"; return; fi
  say "starting a project-local PostgreSQL in .local/pg (port $port)"
  mkdir -p "$root/.local"
  local run=()
  if [[ "$(id -u)" == 0 ]]; then chown -R postgres "$root/.local" 2>/dev/null || true; run=(runuser -u postgres --); fi
  if [[ ! -f "$data/PG_VERSION" ]]; then
    "${run[@]}" "$bin/initdb" -D "$data" -U postgres -A trust >/dev/null
  fi
  "${run[@]}" "$bin/pg_ctl" -D "$data" -l "$data/server.log" -o "-p $port -k /tmp -c listen_addresses=127.0.0.1" -w start >&2
  echo "$url"
}

ensure_rust_tools() { # the WASM toolchain of TOOLCHAIN.md; never lets Trunk download anything
  rustup target list --installed | grep -qx wasm32-unknown-unknown || { say "rustup target add wasm32-unknown-unknown"; rustup target add wasm32-unknown-unknown; }
  if ! wasm-bindgen --version 2>/dev/null | grep -q "0.2.130"; then
    say "cargo install wasm-bindgen-cli 0.2.130 (a few minutes, once)"
    cargo install wasm-bindgen-cli --version 0.2.130 --force
  fi
  if ! trunk --version 2>/dev/null | grep -q "0.21.14"; then
    say "cargo install trunk 0.21.14 (about 12 minutes, once)"
    cargo install --locked trunk --version 0.21.14 --force
  fi
  ensure_npm_packages
  command -v cargo-nextest >/dev/null || { say "cargo install cargo-nextest"; cargo install --locked cargo-nextest; }
}

# The root package.json's devDependencies, each pinned to an exact version: binaryen 132
# (wasm-opt for Trunk), axe-core (the browser tests' accessibility checks), @clerk/backend
# (Clerk's SDK, for the clerk-dev fidelity test) and standardwebhooks (the webhook library check).
# `npm ci` whenever one is missing or at another version. Node.js comes with the machine;
# @clerk/backend needs Node >= 20.9, so an older one stops here with a clear message.
ensure_npm_packages() {
  command -v npm >/dev/null || apt_install nodejs npm
  node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 20 || (a === 20 && b >= 9) ? 0 : 1)' \
    || die "Node.js $(node --version) is too old: @clerk/backend needs >= 20.9"
  if ! (cd "$root" && node -e '
      const wanted = require("./package.json").devDependencies;
      for (const [name, version] of Object.entries(wanted)) {
        let installed;
        try { installed = require(`./node_modules/${name}/package.json`).version; } catch { process.exit(1); }
        if (installed !== version) process.exit(1);
      }'); then
    say "npm ci (binaryen 132 for wasm-opt, axe-core for the accessibility checks, @clerk/backend for the SDK fidelity test)"
    (cd "$root" && npm ci --no-audit --no-fund --silent)
  fi
}

# The webhook library check (e2e/tests/api/webhook_libraries.rs): Standard Webhooks' official
# Python library, cryptography (Ed25519) and jsonschema, pinned in e2e/webhooks/requirements.txt,
# in a project-local virtual environment of its own (.local/webhook-libs, apart from Schemathesis's); the npm library comes with
# ensure_npm_packages (package.json).
ensure_webhook_libraries() {
  local venv="$root/.local/webhook-libs" wanted="$root/e2e/webhooks/requirements.txt"
  if [[ ! -x "$venv/bin/python" ]]; then
    command -v python3 >/dev/null || apt_install python3 python3-venv
    say "python3 -m venv .local/webhook-libs"
    mkdir -p "$root/.local"
    python3 -m venv "$venv" || { apt_install python3-venv; python3 -m venv "$venv"; }
  fi
  if ! cmp -s "$wanted" "$venv/.requirements"; then
    say "pip install -r e2e/webhooks/requirements.txt (standardwebhooks, cryptography, jsonschema)"
    "$venv/bin/pip" install -q --disable-pip-version-check -r "$wanted" && cp "$wanted" "$venv/.requirements"
  fi
  ensure_npm_packages
}

ensure_browser() { # Debian's Chromium and ChromeDriver for the browser tests
  if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
    apt_install chromium chromium-driver
  fi
}

ensure_deploy_tools() { # for e2e/tests/deploy: Debian's nginx, openssl, PostgreSQL's server tools, systemd-analyze
  local missing=()
  command -v nginx >/dev/null || [[ -x /usr/sbin/nginx ]] || missing+=(nginx)
  command -v openssl >/dev/null || missing+=(openssl)
  compgen -G '/usr/lib/postgresql/*/bin/pg_basebackup' >/dev/null || missing+=(postgresql)
  command -v systemd-analyze >/dev/null || missing+=(systemd)
  if ((${#missing[@]} == 0)); then return 0; fi
  # The tests run nginx and PostgreSQL themselves, in the foreground on loopback ports:
  # installing must not start Debian's services, so service starts are refused while apt
  # runs (the policy-rc.d mechanism container images use), unless a policy is in place.
  local policy=/usr/sbin/policy-rc.d added=""
  if [[ ! -e "$policy" ]]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod +x "$policy" && added=1
  fi
  apt_install "${missing[@]}"
  if [[ -n "$added" ]]; then rm -f "$policy"; fi
}

ensure_pg_client() {
  command -v psql >/dev/null && command -v pg_isready >/dev/null || apt_install postgresql-client
}

# The URL of database $2 on server $1 for the login every server the tests start uses: a
# LOGIN role whose only right is membership of vestibule_app (README, "Database roles"),
# the same one e2e/tests/common/db.rs makes. Run after the first migration (V2 makes
# vestibule_app). Roles are cluster-wide: made once, safe to race.
app_login_url() { # server_url database
  psql -qAt -v ON_ERROR_STOP=1 "$1/postgres" >/dev/null <<'SQL'
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'vestibule_test_login') THEN
    CREATE ROLE vestibule_test_login LOGIN PASSWORD 'vestibule_test_login' NOSUPERUSER NOCREATEDB NOCREATEROLE INHERIT;
  END IF;
  IF NOT pg_has_role('vestibule_test_login', 'vestibule_app', 'MEMBER') THEN
    GRANT vestibule_app TO vestibule_test_login;
  END IF;
EXCEPTION WHEN duplicate_object OR unique_violation OR internal_error THEN NULL;
END $$;
SQL
  printf '%s/%s\n' "$(sed -E 's#//([^@/]*@)?#//vestibule_test_login:vestibule_test_login@#' <<<"$1")" "$2"
}
