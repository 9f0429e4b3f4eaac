#!/usr/bin/env bash
# Checks that scripts/package.sh verifies each crate against the code of the
# workspace crates it depends on as they are now, not as an earlier run
# built them. Run by .ci/run after package.sh, on the same target dir.
#
# The verification builds take a dependency on another workspace crate from
# a temporary registry, where a crate of an unchanged version counts as
# unchanged: without package.sh's clean-up, a second run would reuse the
# first run's build of flakeid-core and verify flakeid-seaorm against it.
#
# In a scratch worktree of HEAD sharing the workspace's target dir: package
# once, add a public function to flakeid-core and a use of it to
# flakeid-seaorm, package again. The second run fails if it verifies
# flakeid-seaorm against the first run's flakeid-core.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"

target=$(cargo metadata --no-deps --format-version 1 |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
export CARGO_TARGET_DIR="$target"
work=$(mktemp -d)
cleanup() { git -C "$repo" worktree remove --force "$work" >/dev/null 2>&1 || rm -rf "$work"; }
trap cleanup EXIT
git worktree add --quiet --detach "$work" HEAD

echo "::: package.sh in a scratch worktree of HEAD" >&2
"$work/scripts/package.sh" --allow-dirty
cat >>"$work/flakeid-core/src/lib.rs" <<'EOF'

/// Added by scripts/check-package-rebuild.sh.
pub fn package_rebuild_probe() {}
EOF
cat >>"$work/flakeid-seaorm/src/lib.rs" <<'EOF'

/// Added by scripts/check-package-rebuild.sh: needs the flakeid-core above.
pub fn package_rebuild_probe() {
    flakeid_core::package_rebuild_probe();
}
EOF
echo "::: package.sh again, flakeid-seaorm now using a new function of flakeid-core" >&2
if ! "$work/scripts/package.sh" --allow-dirty; then
    echo "::: package.sh verified a crate against an earlier run's build of its dependency" >&2
    exit 1
fi
echo "::: package.sh verified against the current code" >&2
