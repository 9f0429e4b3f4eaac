#!/usr/bin/env bash
# Packages every crate of the workspace that is published and builds each
# from its packaged files, as crates.io will (`cargo package --workspace`
# with its verification build). Crates with `publish = false` are left out:
# cargo packages them too otherwise, and they are not meant to build alone
# from a package (the tests' and benchmarks' path dependencies carry no
# version). Run by .ci/run. The verification builds use the workspace's
# target dir, so dependencies built before with the same features are reused.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

mapfile -t unpublished < <(cargo metadata --no-deps --format-version 1 | python3 -c '
import json, sys
for p in json.load(sys.stdin)["packages"]:
    if p["publish"] == []:
        print(p["name"])')
mapfile -t published < <(cargo metadata --no-deps --format-version 1 | python3 -c '
import json, sys
for p in json.load(sys.stdin)["packages"]:
    if p["publish"] != []:
        print(p["name"] + "-" + p["version"])')
excludes=()
for name in "${unpublished[@]}"; do excludes+=(--exclude "$name"); done
# The verification builds unpack the packaged crates into Cargo's registry
# sources (and cache), under a directory named for the temporary registry,
# and Cargo does not unpack a crate whose directory is already there: an
# earlier run's copy of the same version would be built instead of this
# one. Remove those copies first.
cargo_home="${CARGO_HOME:-$HOME/.cargo}"
for crate in "${published[@]}"; do
    rm -rf "$cargo_home"/registry/src/*/"$crate" "$cargo_home"/registry/cache/*/"$crate.crate"
done
# The verification builds also take each crate's dependencies on the other
# workspace crates from that registry, and Cargo counts a registry crate of
# an unchanged version as unchanged: a build an earlier run left would be
# reused, and a crate verified against its dependency's old code. Remove
# those builds (their dep-info names the registry's sources) so that they
# are compiled afresh (scripts/check-package-rebuild.sh checks this).
target_dir=$(cargo metadata --no-deps --format-version 1 |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
for dep_info in "$target_dir"/debug/deps/flakeid_*.d; do
    [ -e "$dep_info" ] || continue
    grep -q '/registry/src/[^/]*/flakeid-' "$dep_info" || continue
    unit=$(basename "$dep_info" .d) # flakeid_core-<hash>
    crate=${unit%-*}
    rm -rf "$target_dir/debug/.fingerprint/${crate//_/-}-${unit##*-}" \
        "$target_dir/debug/deps/lib$unit".* "$dep_info"
done
echo "::: cargo package --workspace ${excludes[*]} --locked $*" >&2
cargo package --workspace "${excludes[@]}" --locked "$@"
