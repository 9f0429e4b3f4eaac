# Shared helpers for scripts/test.sh, scripts/chaos.sh and scripts/build-images.sh.
# Sourced, not executed.

# Local images built by scripts/build-images.sh and selected by scripts/test.sh.
FLAKEID_BASE_IMAGE="${FLAKEID_BASE_IMAGE:-flakeid-db-base:bookworm}"
FLAKEID_LOCAL_POSTGRES_IMAGE="${FLAKEID_LOCAL_POSTGRES_IMAGE:-flakeid-postgres:15}"
FLAKEID_LOCAL_POSTGRES18_IMAGE="${FLAKEID_LOCAL_POSTGRES18_IMAGE:-flakeid-postgres:18}"
FLAKEID_LOCAL_MARIADB_IMAGE="${FLAKEID_LOCAL_MARIADB_IMAGE:-flakeid-mariadb:10.11}"
FLAKEID_LOCAL_ETCD_IMAGE="${FLAKEID_LOCAL_ETCD_IMAGE:-flakeid-etcd:3.4}"
# Label every test container carries, so leftovers can be found and removed.
FLAKEID_CONTAINER_LABEL="org.flakeid.tests=1"

export _flakeid_t0="${_flakeid_t0:-$(date +%s)}"

log() {
    printf '[%s +%4ss] %s\n' "$(date +%H:%M:%S)" "$(( $(date +%s) - _flakeid_t0 ))" "$*" >&2
}

die() {
    log "ERROR: $*"
    exit 1
}

# Sets the variable named $1 to the CPU seconds (user + system) of the
# processes this shell has started and waited for so far (with theirs).
# Not in a command substitution: a subshell has children of its own.
children_cpu() {
    local file
    file=$(mktemp -t flakeid-times.XXXXXX)
    times >"$file"
    printf -v "$1" '%s' "$(awk 'NR == 2 {
        n = 0
        for (i = 1; i <= 2; i++) { split($i, t, /[ms]/); n += t[1] * 60 + t[2] }
        printf "%.0f", n
    }' "$file")"
    rm -f "$file"
}

# Runs a named phase and records how long it took, in wall and CPU seconds.
PHASE_TIMES=()
# Runs a command ($@) so that a signal's trap runs at once: bash runs a
# trap only once the foreground command it waits for has ended, but a
# `wait` is interrupted. Shell functions run as they are (they set the
# caller's variables).
interruptible() {
    if declare -F "$1" >/dev/null; then
        "$@"
        return
    fi
    "$@" &
    wait "$!"
}

phase() {
    local name=$1
    shift
    local start end status cpu_start cpu_end
    start=$(date +%s)
    children_cpu cpu_start
    log "== $name"
    set +e
    interruptible "$@"
    status=$?
    set -e
    end=$(date +%s)
    children_cpu cpu_end
    PHASE_TIMES+=("$(printf '%-28s %5ss %6s CPU-s  (exit %s)' "$name" "$((end - start))" \
        "$((cpu_end - cpu_start))" "$status")")
    log "== $name: $((end - start))s, $((cpu_end - cpu_start)) CPU-s (exit $status)"
    return "$status"
}

# Prints the phases' times, then the total since the script started.
print_phase_times() {
    local line cpu
    [ "${#PHASE_TIMES[@]}" -gt 0 ] || return 0
    log "phase timings (wall seconds, CPU seconds of user + system):"
    for line in "${PHASE_TIMES[@]}"; do
        printf '    %s\n' "$line" >&2
    done
    children_cpu cpu
    printf '    %-28s %5ss %6s CPU-s\n' total "$(($(date +%s) - _flakeid_t0))" "$cpu" >&2
}

as_root() {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo "$@"
    else
        die "need root (or sudo) to run: $*"
    fi
}

# Installs the given Debian packages unless all are already installed.
_apt_updated=0
ensure_apt_packages() {
    local missing=() pkg
    for pkg in "$@"; do
        if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
            missing+=("$pkg")
        fi
    done
    [ "${#missing[@]}" -eq 0 ] && return 0
    command -v apt-get >/dev/null 2>&1 ||
        die "missing packages (${missing[*]}) and no apt-get to install them; install them by hand"
    log "installing Debian packages: ${missing[*]}"
    local aptlog
    aptlog=$(mktemp -t flakeid-apt.XXXXXX)
    if [ "$_apt_updated" -eq 0 ]; then
        as_root apt-get update -qq >"$aptlog" 2>&1 || { cat "$aptlog" >&2; die "apt-get update failed"; }
        _apt_updated=1
    fi
    as_root env DEBIAN_FRONTEND=noninteractive NEEDRESTART_SUSPEND=1 \
        apt-get install -y -qq --no-install-recommends "${missing[@]}" >"$aptlog" 2>&1 ||
        { cat "$aptlog" >&2; die "apt-get install ${missing[*]} failed"; }
    rm -f "$aptlog"
}

engine_reachable() {
    command -v docker >/dev/null 2>&1 && timeout 20 docker info >/dev/null 2>&1
}

# Starts a Docker engine unless one is reachable, logging to $1; the pid of
# one started here is in started_dockerd_pid, for stop_engine.
started_dockerd_pid=""
start_engine() {
    local logfile=$1
    if engine_reachable; then
        log "container engine reachable: $(docker version --format 'server {{.Server.Version}}' 2>/dev/null || echo '?')"
        return 0
    fi
    if ! command -v dockerd >/dev/null 2>&1 || ! command -v docker >/dev/null 2>&1; then
        ensure_apt_packages docker.io
    fi
    command -v dockerd >/dev/null 2>&1 ||
        die "no Docker engine reachable and dockerd not installed; start Docker or install docker.io"
    [ "$(id -u)" -eq 0 ] || die "no Docker engine reachable; starting dockerd needs root (or start Docker yourself)"
    log "starting dockerd (log: $logfile)"
    # Own session: a Ctrl-C in the terminal reaches this script, which then stops it.
    setsid dockerd >"$logfile" 2>&1 </dev/null &
    started_dockerd_pid=$!
    local i
    for i in $(seq 1 120); do
        if docker info >/dev/null 2>&1; then
            log "dockerd ready (pid $started_dockerd_pid) after ~$((i / 2))s"
            return 0
        fi
        kill -0 "$started_dockerd_pid" 2>/dev/null || {
            tail -n 20 "$logfile" >&2
            started_dockerd_pid=""
            die "dockerd exited during start-up; see $logfile"
        }
        sleep 0.5
    done
    die "dockerd did not become ready within 60s; see $logfile"
}

# Stops the engine start_engine started (unless FLAKEID_KEEP_DOCKERD=1).
stop_engine() {
    [ -n "$started_dockerd_pid" ] || return 0
    if [ "${FLAKEID_KEEP_DOCKERD:-0}" = 1 ]; then
        log "leaving dockerd (pid $started_dockerd_pid) running (FLAKEID_KEEP_DOCKERD=1)"
        return 0
    fi
    log "stopping dockerd (pid $started_dockerd_pid)"
    kill -TERM "$started_dockerd_pid" 2>/dev/null || true
    local i
    for i in $(seq 1 60); do
        kill -0 "$started_dockerd_pid" 2>/dev/null || { started_dockerd_pid=""; return 0; }
        sleep 0.5
    done
    log "dockerd did not stop within 30s; killing it"
    kill -KILL "$started_dockerd_pid" 2>/dev/null || true
    started_dockerd_pid=""
}
