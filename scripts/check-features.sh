#!/usr/bin/env bash
# Lints every published library crate (warnings denied) with no default
# features, with each of its features alone, and with all of them (where
# features combine, e.g. flakeid-diesel's `lease` and `async`), so that what
# a user turns on compiles. The crates and their
# features come from `cargo metadata`: a new crate or feature is checked
# without being listed here. Run by .ci/run.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# One line per check: the crate, then the feature (empty: none).
mapfile -t checks < <(cargo metadata --no-deps --format-version 1 | python3 -c '
import json, sys
for p in json.load(sys.stdin)["packages"]:
    if p["publish"] == [] or not any("lib" in t["kind"] or "proc-macro" in t["kind"] for t in p["targets"]):
        continue
    print(p["name"])
    print(p["name"] + " *")
    for feature in sorted(f for f in p["features"] if f != "default"):
        print(p["name"] + " " + feature)')
for check in "${checks[@]}"; do
    read -r crate feature <<<"$check"
    if [ "$feature" = "*" ]; then
        echo "::: cargo clippy -p $crate --all-features" >&2
        cargo clippy --quiet -p "$crate" --all-features -- -D warnings
        continue
    fi
    echo "::: cargo clippy -p $crate --no-default-features ${feature:+--features $feature}" >&2
    cargo clippy --quiet -p "$crate" --no-default-features ${feature:+--features "$feature"} -- -D warnings
done
