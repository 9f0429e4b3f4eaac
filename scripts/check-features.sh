#!/usr/bin/env bash
# Lints every library crate (warnings denied) with no default features and with each of its
# features alone, so that a feature a user turns on by itself compiles and
# its docs build. Run by .ci/run.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

check() {
    local crate=$1 features=$2
    echo "::: cargo clippy -p $crate --no-default-features ${features:+--features $features}" >&2
    cargo clippy --quiet -p "$crate" --no-default-features ${features:+--features "$features"} -- -D warnings
}

for f in "" serde macros diesel diesel-postgres diesel-mysql diesel-sqlite sea-orm \
    sqlx-postgres sqlx-mysql sqlx-sqlite utoipa schemars async-graphql ts-rs specta tokio; do
    check flakeid-core "$f"
done
check flakeid-macros ""
for f in "" macros with-json; do
    check flakeid-seaorm "$f"
done
for f in "" macros postgres mysql sqlite async async,postgres; do
    check flakeid-diesel "$f"
done
check flakeid-etcd ""
