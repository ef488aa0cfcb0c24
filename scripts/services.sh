#!/usr/bin/env bash
# scripts/services.sh — make sure every system service the test suite needs is
# installed, running and provisioned. Idempotent: a second run only checks.
#
#   bash scripts/services.sh     # install/start/provision, print the env vars
#   source scripts/services.sh   # same, and also export the env vars into the
#                                # calling shell (this is what scripts/test.sh does)
#
# Services (no systemd on these machines, so everything is started by hand):
#   PostgreSQL 15  127.0.0.1:5432  role/password modelgate, db modelgate_test (CREATEDB)
#   MariaDB        127.0.0.1:3306  user modelgate@{127.0.0.1,localhost}, db modelgate_test,
#                                  ALL on `modelgate\_%`.* (so tests can create per-run dbs)
#   Redis          127.0.0.1:6379  (tests use db 15)
# Plus packages only needed by other test stages: chromium + CJK fonts
# (Playwright e2e), wrk (benchmark), haproxy (the two-node failover test,
# apps/server/src/lib/cluster-haproxy.test.ts, runs its own haproxy process
# from docs/haproxy.cfg; the system haproxy service is never started).
#
# Env vars the tests read (they fall back to exactly these defaults):
#   MODELGATE_TEST_PG, MODELGATE_TEST_MYSQL, MODELGATE_TEST_REDIS

# When sourced: run the real work in a child bash (so `set -e` semantics and
# `exit` can't leak into / kill the caller unexpectedly), then export the vars.
if [[ "${BASH_SOURCE[0]}" != "$0" ]]; then
  # (its stdout is just the export lines printed at the end; logs go to stderr)
  bash "${BASH_SOURCE[0]}" "$@" >/dev/null || return $?
  export MODELGATE_TEST_PG="${MODELGATE_TEST_PG:-postgres://modelgate:modelgate@127.0.0.1:5432/modelgate_test}"
  export MODELGATE_TEST_MYSQL="${MODELGATE_TEST_MYSQL:-mysql://modelgate:modelgate@127.0.0.1:3306/modelgate_test}"
  export MODELGATE_TEST_REDIS="${MODELGATE_TEST_REDIS:-redis://127.0.0.1:6379/15}"
  return 0
fi

set -euo pipefail

# Packages the whole suite needs. Keep in sync with .ci/run.
PACKAGES=(postgresql mariadb-server redis-server chromium fonts-wqy-zenhei wrk haproxy)
WAIT_SECONDS="${SERVICES_WAIT_SECONDS:-60}"   # bounded wait per service
LOG_DIR="${TMPDIR:-/tmp}/modelgate-services"
mkdir -p "$LOG_DIR"

log() { printf '[services] %s\n' "$*" >&2; }
die() { printf '[services] ERROR: %s\n' "$*" >&2; exit 1; }

# wait_for NAME CMD... — poll CMD until it succeeds or WAIT_SECONDS elapse.
wait_for() {
  local name="$1"; shift
  local deadline=$((SECONDS + WAIT_SECONDS))
  until "$@" >/dev/null 2>&1; do
    if (( SECONDS >= deadline )); then
      return 1
    fi
    sleep 0.3
  done
  log "$name is accepting connections"
}

if [[ $(id -u) -ne 0 ]]; then
  die "must run as root (installs packages and starts system services)"
fi

# ---------------------------------------------------------------- packages --
is_installed() {
  [[ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true)" == "install ok installed" ]]
}

missing=()
for p in "${PACKAGES[@]}"; do
  is_installed "$p" || missing+=("$p")
done
if ((${#missing[@]})); then
  log "installing missing packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  # Other sessions/helpers may be using apt at the same time: wait for the
  # dpkg lock instead of failing straight away.
  APT=(apt-get -o DPkg::Lock::Timeout=600 -q)
  # On CI, .ci/run has already run `apt-get update` once (and installed these),
  # so only refresh the lists outside CI, and at most once per run of this script.
  # apt's chatter goes to a log file; its tail is shown if it fails.
  apt_log="$LOG_DIR/apt.log"
  if [[ "${CI:-}" != "true" ]]; then
    "${APT[@]}" update >"$apt_log" 2>&1 || { tail -30 "$apt_log" >&2; die "apt-get update failed (log: $apt_log)"; }
  fi
  "${APT[@]}" install -y "${missing[@]}" >>"$apt_log" 2>&1 \
    || { tail -30 "$apt_log" >&2; die "apt-get install ${missing[*]} failed (log: $apt_log)"; }
else
  log "all packages present"
fi
[[ -x /usr/bin/chromium ]] || die "/usr/bin/chromium missing after install"

# -------------------------------------------------------------- PostgreSQL --
PG_VERSION=15
PG_CLUSTER=main
if ! pg_lsclusters -h 2>/dev/null | awk '{print $1" "$2}' | grep -qx "$PG_VERSION $PG_CLUSTER"; then
  # The postgresql package normally creates this cluster; recreate if someone dropped it.
  log "creating PostgreSQL cluster $PG_VERSION/$PG_CLUSTER"
  pg_createcluster "$PG_VERSION" "$PG_CLUSTER" >&2
fi
pg_status=$(pg_lsclusters -h | awk -v v="$PG_VERSION" -v c="$PG_CLUSTER" '$1==v && $2==c {print $4}')
if [[ "$pg_status" != online* ]]; then
  log "starting PostgreSQL $PG_VERSION/$PG_CLUSTER"
  # pg_ctlcluster works without systemd when run as root (it drops to the postgres user).
  pg_ctlcluster "$PG_VERSION" "$PG_CLUSTER" start >&2 \
    || die "pg_ctlcluster failed; see /var/log/postgresql/postgresql-$PG_VERSION-$PG_CLUSTER.log"
fi
wait_for "PostgreSQL" pg_isready -q -h 127.0.0.1 -p 5432 \
  || die "PostgreSQL did not accept connections on 127.0.0.1:5432 within ${WAIT_SECONDS}s; see /var/log/postgresql/postgresql-$PG_VERSION-$PG_CLUSTER.log"

# Provision as the postgres superuser over the local socket (peer auth).
# ALTER on an existing role keeps password/CREATEDB right even if someone changed them.
runuser -u postgres -- psql -v ON_ERROR_STOP=1 -qAt -d postgres >/dev/null <<'SQL'
DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'modelgate') THEN
    CREATE ROLE modelgate LOGIN PASSWORD 'modelgate' CREATEDB;
  ELSE
    ALTER ROLE modelgate LOGIN PASSWORD 'modelgate' CREATEDB;
  END IF;
END
$$;
SELECT 'CREATE DATABASE modelgate_test OWNER modelgate'
  WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = 'modelgate_test') \gexec
ALTER DATABASE modelgate_test OWNER TO modelgate;
SQL
PGPASSWORD=modelgate psql -qAt -h 127.0.0.1 -U modelgate -d modelgate_test -c 'select 1' >/dev/null \
  || die "cannot log in to PostgreSQL as modelgate over TCP"
log "PostgreSQL ready (modelgate_test)"

# ----------------------------------------------------------------- MariaDB --
mariadb_up() { mariadb-admin --protocol=socket -uroot ping >/dev/null 2>&1; }
if ! mariadb_up; then
  log "starting MariaDB"
  # No systemd here. The sysv script (`service mariadb start`) works, but it
  # also runs /etc/mysql/debian-start (a mysqlcheck of all tables) and its own
  # fixed wait; starting mysqld_safe directly is quicker and keeps control of
  # the timeout. /run/mysqld is normally created by systemd-tmpfiles, which
  # doesn't run here, so create it ourselves.
  install -d -o mysql -g mysql -m 0755 /run/mysqld
  # The error log must be writable by the mysql user (mariadbd-safe-helper runs as it).
  install -d -o mysql -g adm -m 2750 /var/log/mysql
  if [[ ! -d /var/lib/mysql/mysql ]]; then
    # Data dir is normally initialised by the package's postinst; redo it if missing.
    log "initialising MariaDB data directory"
    mariadb-install-db --user=mysql --datadir=/var/lib/mysql >"$LOG_DIR/mariadb-install-db.log" 2>&1 \
      || die "mariadb-install-db failed; see $LOG_DIR/mariadb-install-db.log"
  fi
  # setsid + nohup: fully detach so the daemon outlives this script and the
  # caller's process group (test runners, CI job control).
  # Debian's mysqld_safe config logs to syslog, and there is no syslog daemon
  # here, so errors would vanish: send them to a file instead.
  setsid nohup mysqld_safe --user=mysql --skip-syslog --log-error=/var/log/mysql/error.log \
    >"$LOG_DIR/mariadb.log" 2>&1 </dev/null &
fi
wait_for "MariaDB" mariadb_up \
  || die "MariaDB did not answer within ${WAIT_SECONDS}s; see /var/log/mysql/error.log and $LOG_DIR/mariadb.log"

# root authenticates via unix_socket on Debian. Create both host variants:
# a TCP connection to 127.0.0.1 may be matched as 'localhost' or '127.0.0.1'.
# `modelgate\_%` (escaped underscore) = any database whose name starts with
# "modelgate_", so tests can CREATE/DROP per-run databases.
mariadb --protocol=socket -uroot <<'SQL'
CREATE DATABASE IF NOT EXISTS modelgate_test CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
CREATE USER IF NOT EXISTS 'modelgate'@'127.0.0.1' IDENTIFIED BY 'modelgate';
CREATE USER IF NOT EXISTS 'modelgate'@'localhost' IDENTIFIED BY 'modelgate';
ALTER USER 'modelgate'@'127.0.0.1' IDENTIFIED BY 'modelgate';
ALTER USER 'modelgate'@'localhost' IDENTIFIED BY 'modelgate';
GRANT ALL PRIVILEGES ON `modelgate_test`.* TO 'modelgate'@'127.0.0.1', 'modelgate'@'localhost';
GRANT ALL PRIVILEGES ON `modelgate\_%`.* TO 'modelgate'@'127.0.0.1', 'modelgate'@'localhost';
FLUSH PRIVILEGES;
SQL
mariadb -h127.0.0.1 -P3306 -umodelgate -pmodelgate modelgate_test -e 'select 1' >/dev/null \
  || die "cannot log in to MariaDB as modelgate over TCP 127.0.0.1:3306"
log "MariaDB ready (modelgate_test)"

# ------------------------------------------------------------------- Redis --
redis_up() { [[ "$(redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null)" == "PONG" ]]; }
if ! redis_up; then
  log "starting Redis"
  # No config file: bind loopback only, and no persistence so no dump.rdb is
  # ever written into the current directory (the repo).
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 \
    --save '' --appendonly no --dir /tmp \
    --logfile "$LOG_DIR/redis.log" >&2 \
    || die "redis-server failed to start; see $LOG_DIR/redis.log"
fi
wait_for "Redis" redis_up \
  || die "Redis did not answer PING on 127.0.0.1:6379 within ${WAIT_SECONDS}s; see $LOG_DIR/redis.log"
log "Redis ready"

# Print for humans (and for `eval` users); `source` exports them itself.
cat <<'ENV'
export MODELGATE_TEST_PG=postgres://modelgate:modelgate@127.0.0.1:5432/modelgate_test
export MODELGATE_TEST_MYSQL=mysql://modelgate:modelgate@127.0.0.1:3306/modelgate_test
export MODELGATE_TEST_REDIS=redis://127.0.0.1:6379/15
ENV
