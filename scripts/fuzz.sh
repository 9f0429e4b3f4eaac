#!/usr/bin/env bash
# Fuzzing with cargo-fuzz (libFuzzer): the targets of fuzz/, one per entry
# point a stranger's input reaches (see docs/testing.md, "Fuzzing").
#
#   ./scripts/fuzz.sh TARGET SECONDS   fuzz TARGET (or `all`: each target in
#                                      turn) for SECONDS, from its corpus
#   ./scripts/fuzz.sh TARGET FILE...   run TARGET once on each FILE (replay
#                                      a finding with the sanitizer's report)
#   ./scripts/fuzz.sh --list           the targets
#
# A run starts from the committed corpus fuzz/corpus/TARGET/ and writes the
# inputs it finds to fuzz/target/new-corpus/TARGET/ (not committed); with
# FLAKEID_FUZZ_MERGE=1 those that reach new coverage are then merged into
# fuzz/corpus/TARGET/ (libFuzzer's -merge=1), for committing. An input that
# breaks the target's property is written to fuzz/artifacts/TARGET/ and the
# script fails; each target's summary (executions, seconds, coverage,
# corpus size) is printed at the end, its log kept in fuzz/target/logs/.
#
# Environment:
#   FLAKEID_FUZZ_TOOLCHAIN      `nightly`, `stable` or `auto` (default): a
#                               nightly toolchain if rustup has one, else
#                               the stable one with RUSTC_BOOTSTRAP=1 (which
#                               lets it take the nightly flags cargo-fuzz
#                               passes: -Zsanitizer, sanitizer coverage).
#   FLAKEID_FUZZ_INSTALL_NIGHTLY=1  install a nightly toolchain with rustup
#                               when none is installed (and rustup can).
#   FLAKEID_FUZZ_SANITIZER      cargo-fuzz's --sanitizer (default `address`;
#                               `none` builds faster and runs faster, and
#                               still finds panics, overflows and hangs).
#   FLAKEID_FUZZ_ARGS           more libFuzzer arguments (e.g. -jobs=2).
#   FLAKEID_FUZZ_MERGE=1        merge what a run found into the corpus.
# cargo-fuzz itself is installed with `cargo install` when missing.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
# shellcheck source=lib/common.sh
. "$here/lib/common.sh"
fuzz="$repo/fuzz"
CARGO_FUZZ_VERSION=0.13.2

targets() {
    local f
    for f in "$fuzz"/fuzz_targets/*.rs; do
        basename "$f" .rs
    done
}

usage() {
    sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2
    exit 2
}

[ "$#" -ge 1 ] || usage
if [ "$1" = --list ]; then
    targets
    exit 0
fi
[ "$#" -ge 2 ] || usage
target=$1
shift
if [ "$target" = all ]; then
    mapfile -t run_targets < <(targets)
elif [ -f "$fuzz/fuzz_targets/$target.rs" ]; then
    run_targets=("$target")
else
    die "no fuzz target $target; the targets: $(targets | tr '\n' ' ')"
fi
seconds=""
files=()
if [[ "$1" =~ ^[0-9]+$ ]] && [ "$#" -eq 1 ]; then
    seconds=$1
else
    [ "$target" != all ] || die "replaying files needs one target, not all"
    files=("$@")
fi

# The toolchain: a nightly one if installed (or, when asked, installable),
# else stable with RUSTC_BOOTSTRAP=1.
cargo_fuzz=()
choose_toolchain() {
    local choice=${FLAKEID_FUZZ_TOOLCHAIN:-auto} have_nightly=0
    command -v rustup >/dev/null 2>&1 && rustup toolchain list 2>/dev/null | grep -q '^nightly' && have_nightly=1
    if [ "$choice" = auto ] && [ "$have_nightly" -eq 0 ] && [ "${FLAKEID_FUZZ_INSTALL_NIGHTLY:-0}" = 1 ]; then
        log "installing a nightly toolchain (FLAKEID_FUZZ_INSTALL_NIGHTLY=1)"
        if rustup toolchain install nightly --profile minimal >&2; then
            have_nightly=1
        else
            log "cannot install a nightly toolchain: using the stable one with RUSTC_BOOTSTRAP=1"
        fi
    fi
    case "$choice" in
        auto) [ "$have_nightly" -eq 1 ] && choice=nightly || choice=stable ;;
        nightly) [ "$have_nightly" -eq 1 ] || die "FLAKEID_FUZZ_TOOLCHAIN=nightly, but rustup has no nightly toolchain" ;;
        stable) ;;
        *) die "FLAKEID_FUZZ_TOOLCHAIN=$choice: expected nightly, stable or auto" ;;
    esac
    if [ "$choice" = nightly ]; then
        cargo_fuzz=(cargo +nightly fuzz)
    else
        export RUSTC_BOOTSTRAP=1
        cargo_fuzz=(cargo fuzz)
    fi
    log "toolchain: $choice ($("${cargo_fuzz[@]:0:${#cargo_fuzz[@]}-1}" --version))"
}

ensure_cargo_fuzz() {
    if ! cargo fuzz --version >/dev/null 2>&1; then
        log "installing cargo-fuzz $CARGO_FUZZ_VERSION"
        cargo install --locked "cargo-fuzz@$CARGO_FUZZ_VERSION" >&2
    fi
}

ensure_cargo_fuzz
choose_toolchain
sanitizer=${FLAKEID_FUZZ_SANITIZER:-address}
build_flags=(--sanitizer "$sanitizer" --fuzz-dir "$fuzz")
# Each sanitizer's build in a target dir of its own (address: cargo-fuzz's
# default), so that switching does not rebuild the other.
[ "$sanitizer" = address ] || build_flags+=(--target-dir "$fuzz/target/sanitizer-$sanitizer")
cd "$repo"

start=$(date +%s)
log "building the fuzz targets (sanitizer $sanitizer)"
if [ "${#run_targets[@]}" -gt 1 ]; then
    "${cargo_fuzz[@]}" build "${build_flags[@]}"
else
    "${cargo_fuzz[@]}" build "${build_flags[@]}" "${run_targets[0]}"
fi
log "built in $(($(date +%s) - start)) s"

if [ "${#files[@]}" -gt 0 ]; then
    exec "${cargo_fuzz[@]}" run "${build_flags[@]}" "$target" "${files[@]}" -- -runs=1
fi

logs="$fuzz/target/logs"
mkdir -p "$logs"
summaries=()
failed=()
# shellcheck disable=SC2206
extra=(${FLAKEID_FUZZ_ARGS:-})
for t in "${run_targets[@]}"; do
    new="$fuzz/target/new-corpus/$t"
    mkdir -p "$new" "$fuzz/corpus/$t"
    log "fuzzing $t for ${seconds}s"
    status=0
    "${cargo_fuzz[@]}" run "${build_flags[@]}" "$t" "$new" "$fuzz/corpus/$t" -- \
        -max_total_time="$seconds" -print_final_stats=1 -timeout=20 "${extra[@]}" \
        >"$logs/$t.log" 2>&1 || status=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$logs/$t.log" | tail -1)
    done_line=$(grep -aE '^#[0-9]+[[:space:]]+(DONE|INITED)' "$logs/$t.log" | tail -1 || true)
    cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$done_line")
    ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$done_line")
    corpus=$(find "$fuzz/corpus/$t" -type f | wc -l)
    summaries+=("$(printf '%-18s %12s runs %6ss  cov %6s  ft %7s  corpus %5s  new %5s' \
        "$t" "${runs:-?}" "$seconds" "${cov:-?}" "${ft:-?}" "$corpus" "$(find "$new" -type f | wc -l)")")
    if [ "$status" -ne 0 ]; then
        log "FINDING in $t (exit $status): the end of $logs/$t.log:"
        tail -40 "$logs/$t.log" >&2
        failed+=("$t")
        continue
    fi
    if [ "${FLAKEID_FUZZ_MERGE:-0}" = 1 ]; then
        log "merging what $t found into fuzz/corpus/$t"
        "${cargo_fuzz[@]}" run "${build_flags[@]}" "$t" "$fuzz/corpus/$t" "$new" -- -merge=1 \
            >>"$logs/$t.log" 2>&1 || die "merging $t's corpus failed: see $logs/$t.log"
    fi
done

printf '%s\n' "${summaries[@]}" >&2
if [ "${#failed[@]}" -gt 0 ]; then
    die "findings in: ${failed[*]} (inputs in fuzz/artifacts/<target>/; replay one with ./scripts/fuzz.sh TARGET FILE)"
fi
log "no findings in ${#run_targets[@]} targets"
