#!/usr/bin/env bash
# Load and chaos for flakeid-service: 4 replicas on one PostgreSQL database
# in a container, under load from flakeid-service-load, through these phases:
#
#   baseline   load only
#   sigkill    replica 0 killed with SIGKILL and started again: every node
#              is held, so the new process waits for its old node's lease
#              to run out (up to the 15 s TTL) and takes it over
#   sigstop    replica 1 stopped with SIGSTOP past its lease's TTL; replica
#              2 killed and started again, so that the only free node is the
#              stopped one's and the new process takes it; then SIGCONT:
#              replica 1 finds its lease lost and moves to replica 2's old
#              node once that is free
#   db-pause   the database paused (docker pause) past the TTL, then resumed
#   rolling    every replica in turn: SIGTERM, wait for exit, start again
#   cooldown   load only
#
# Afterwards, with plain SQL: no key stored twice, every acknowledged write
# stored, and every key's node held by the replica that returned it when
# the key was stamped (from the replicas' lease events); per phase:
# requests/s, p50/p99 latency and outcomes by status; from every replica's
# /metrics, saved before it is stopped: the totals of flakeid's counters,
# which must show IDs issued and lease renewals. Exit status 1 if a check
# fails.
#
# Environment:
#   CARGO_TARGET_DIR           as for cargo (binaries are built there)
#   CHAOS_PROFILE              cargo profile: dev (default) or release
#   CHAOS_THREADS              load client threads (default 16)
#   CHAOS_NODES                node range the replicas lease (default 0-3:
#                              one node per replica, so nodes change hands)
#   FLAKEID_TEST_POSTGRES_IMAGE  image (default flakeid-postgres:15 when it
#                              exists locally, else postgres:17)
#   FLAKEID_KEEP_DOCKERD=1     leave a Docker engine this script started running
#   CHAOS_SMOKE=1              the short version `./scripts/test.sh` runs: the
#                              same phases and checks in about 40 s, with a
#                              free node for every restart (nodes 0-5), the
#                              stop and the pause shorter than the TTL, and
#                              no build (the test command built the binaries)
# Output (logs, journal, report): target/chaos/<time>/.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
# shellcheck source=lib/common.sh
. "$here/lib/common.sh"
cd "$repo"

profile="${CHAOS_PROFILE:-dev}"
smoke="${CHAOS_SMOKE:-0}"
if [ "$smoke" = 1 ]; then
    threads="${CHAOS_THREADS:-4}"
    nodes="${CHAOS_NODES:-0-5}"
else
    threads="${CHAOS_THREADS:-16}"
    nodes="${CHAOS_NODES:-0-3}"
fi
# Seconds of each wait: the full run's, or the smoke run's.
pause() {
    if [ "$smoke" = 1 ]; then sleep "$2"; else sleep "$1"; fi
}
target_dir="${CARGO_TARGET_DIR:-$repo/target}"
case "$profile" in
    dev) bin_dir="$target_dir/debug" ;;
    release) bin_dir="$target_dir/release" ;;
    *) die "CHAOS_PROFILE=$profile: expected dev or release" ;;
esac
out="$repo/target/chaos/$(date +%Y%m%d-%H%M%S)"
mkdir -p "$out"
runs="$out/runs.tsv"
phases="$out/phases.tsv"
: >"$runs"
: >"$phases"

container=""
load_pid=""
declare -a pids=() runs_of=() started_at=() logs=()
replicas=4
# Below the ephemeral range (32768 on), where Docker publishes ports.
base_port=$((20000 + ($$ % 1000) * 8))

now_ms() { date +%s%3N; }

cleanup() {
    local status=$?
    trap - EXIT INT TERM
    local k
    for k in $(seq 0 $((replicas - 1))); do
        if [ -n "${pids[$k]:-}" ] && kill -0 "${pids[$k]}" 2>/dev/null; then
            kill -CONT "${pids[$k]}" 2>/dev/null || true
            kill -KILL "${pids[$k]}" 2>/dev/null || true
        fi
    done
    [ -n "$load_pid" ] && kill "$load_pid" 2>/dev/null || true
    if [ -n "$container" ]; then
        docker unpause "$container" >/dev/null 2>&1 || true
        docker rm -fv "$container" >/dev/null 2>&1 || true
    fi
    stop_engine || true
    log "output in $out"
    exit "$status"
}
trap cleanup EXIT
trap 'log "interrupted"; exit 130' INT TERM

# Starts replica $1 (its next run), logging to its own file.
start_replica() {
    local k=$1 run=$((${runs_of[$1]:-0} + 1))
    runs_of[$k]=$run
    logs[$k]="$out/replica-$k-run-$run.log"
    started_at[$k]=$(now_ms)
    DATABASE_URL="$db_url" HOST=127.0.0.1 PORT=$((base_port + k)) FLAKEID_SPACE=chaos \
        FLAKEID_NODES="$nodes" RUST_LOG=info \
        "$bin_dir/flakeid-service" >"${logs[$k]}" 2>&1 &
    pids[$k]=$!
}

# Waits until replica $1 answers /health with 200.
wait_healthy() {
    local k=$1 i
    for i in $(seq 1 600); do
        if curl -fsS -o /dev/null "http://127.0.0.1:$((base_port + k))/health" 2>/dev/null; then
            return 0
        fi
        kill -0 "${pids[$k]}" 2>/dev/null || { tail -n 20 "${logs[$k]}" >&2; die "replica $k exited"; }
        sleep 0.1
    done
    die "replica $k not healthy within 60 s"
}

# Records the end of replica $1's current run.
end_run() {
    local k=$1
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$k" "${runs_of[$k]}" "${pids[$k]}" "${logs[$k]}" \
        "${started_at[$k]}" "$(now_ms)" >>"$runs"
}

# Saves replica $1's /metrics page (its counters end with the process).
save_metrics() {
    local k=$1
    curl -fsS -m 5 -o "$out/metrics-$k-run-${runs_of[$k]}.txt" \
        "http://127.0.0.1:$((base_port + k))/metrics" 2>/dev/null || true
}

stop_replica() { # $1 replica, $2 signal; waits for the exit
    local k=$1 sig=$2 i
    save_metrics "$k"
    kill "-$sig" "${pids[$k]}"
    for i in $(seq 1 600); do
        kill -0 "${pids[$k]}" 2>/dev/null || break
        sleep 0.05
    done
    wait "${pids[$k]}" 2>/dev/null || true
    end_run "$k"
}

# `docker pause|unpause` of the database container, tried up to five times:
# on a busy machine the cgroup freezer can fail to settle in time (runc:
# "unable to freeze"), leaving the container as it was.
freeze() {
    local i
    for i in 1 2 3 4 5; do
        docker "$1" "$container" >/dev/null && return 0
        sleep 0.2
    done
    die "docker $1 $container failed 5 times"
}

phase_start=0
begin_phase() {
    phase_name=$1
    phase_start=$(now_ms)
    log "phase $phase_name"
}
end_phase() {
    printf '%s\t%s\t%s\n' "$phase_name" "$phase_start" "$(now_ms)" >>"$phases"
}

if [ "$smoke" = 1 ]; then
    [ -x "$bin_dir/flakeid-service" ] && [ -x "$bin_dir/flakeid-service-load" ] ||
        die "CHAOS_SMOKE=1 runs the binaries the tests built; none in $bin_dir"
else
    log "building flakeid-service and flakeid-service-load ($profile)"
    if [ "$profile" = release ]; then
        cargo build --release -p flakeid-service --bins
    else
        cargo build -p flakeid-service --bins
    fi
fi
command -v curl >/dev/null 2>&1 || ensure_apt_packages curl

start_engine "$out/dockerd.log"
image="${FLAKEID_TEST_POSTGRES_IMAGE:-}"
if [ -z "$image" ]; then
    if docker image inspect "$FLAKEID_LOCAL_POSTGRES_IMAGE" >/dev/null 2>&1; then
        image=$FLAKEID_LOCAL_POSTGRES_IMAGE
    else
        image=postgres:17
    fi
fi
log "starting PostgreSQL ($image)"
container=$(docker run -d --rm -e POSTGRES_PASSWORD=flakeid -p 5432 \
    --label org.flakeid.chaos=1 "$image")
port=$(docker port "$container" 5432/tcp | head -n 1 | sed 's/.*://')
db_url="postgres://postgres:flakeid@127.0.0.1:$port/postgres"
"$bin_dir/flakeid-service-load" wait-db "$db_url" || die "PostgreSQL did not come up"
log "PostgreSQL at 127.0.0.1:$port"

for k in $(seq 0 $((replicas - 1))); do start_replica "$k"; done
for k in $(seq 0 $((replicas - 1))); do wait_healthy "$k"; done
log "replicas on ports $base_port..$((base_port + replicas - 1)), nodes $nodes"

targets=$(for k in $(seq 0 $((replicas - 1))); do printf 'http://127.0.0.1:%s,' $((base_port + k)); done)
"$bin_dir/flakeid-service-load" run --targets "${targets%,}" --journal "$out/journal.tsv" \
    --stop-file "$out/stop" --threads "$threads" 2>"$out/load.log" &
load_pid=$!

begin_phase baseline
pause 15 3
end_phase

begin_phase sigkill
stop_replica 0 KILL
start_replica 0
wait_healthy 0
pause 5 2
end_phase

begin_phase sigstop
kill -STOP "${pids[1]}"
pause 17 3 # full run: past the 15 s TTL, so replica 1's node is free to take
stop_replica 2 KILL
start_replica 2
wait_healthy 2
pause 2 1
kill -CONT "${pids[1]}"
wait_healthy 1
pause 5 2
end_phase

begin_phase db-pause
freeze pause
pause 20 3 # full run: past the TTL
freeze unpause
for k in $(seq 0 $((replicas - 1))); do wait_healthy "$k"; done
pause 10 2
end_phase

begin_phase rolling
for k in $(seq 0 $((replicas - 1))); do
    stop_replica "$k" TERM
    start_replica "$k"
    wait_healthy "$k"
    pause 2 1
done
end_phase

begin_phase cooldown
pause 10 2
end_phase

touch "$out/stop"
wait "$load_pid" || die "the load client failed; see $out/load.log"
load_pid=""
for k in $(seq 0 $((replicas - 1))); do stop_replica "$k" TERM; done

log "checking with plain SQL"
"$bin_dir/flakeid-service-load" verify --database-url "$db_url" --journal "$out/journal.tsv" \
    --runs "$runs" --phases "$phases" --metrics "$out" | tee "$out/report.md"
