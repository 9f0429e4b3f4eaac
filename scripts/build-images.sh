#!/usr/bin/env bash
# Builds the local database images the tests use when no registry is reachable:
#   flakeid-db-base:bookworm  Debian (minbase) with PostgreSQL and MariaDB packages
#   flakeid-postgres:15       PostgreSQL 15, trust auth from any host
#   flakeid-mariadb:10.11     MariaDB 10.11, root@'%' with password "flakeid"
#   flakeid-etcd:3.4          etcd 3.4 (Debian's etcd-server package), client port 2379
# Only the Debian package mirror is needed. Images that already exist are
# skipped; the debootstrap root filesystem is cached between runs.
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

build_image() {
    local image=$1 dir=$2
    if image_exists "$image" && [ "${FLAKEID_REBUILD_IMAGES:-0}" != 1 ]; then
        log "image $image exists"
        return 0
    fi
    build_base
    log "building $image from $dir"
    local buildlog="$cache/build-${image//[:\/]/_}.log"
    as_root mkdir -p "$cache"
    docker build --build-arg "BASE=$FLAKEID_BASE_IMAGE" --label org.flakeid.image=1 \
        -t "$image" "$dir" >"$buildlog" 2>&1 || {
        tail -n 30 "$buildlog" >&2
        die "docker build of $image failed; see $buildlog"
    }
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
build_image "$FLAKEID_LOCAL_MARIADB_IMAGE" "$here/images/mariadb"
build_etcd_image
log "images ready: $FLAKEID_LOCAL_POSTGRES_IMAGE $FLAKEID_LOCAL_MARIADB_IMAGE $FLAKEID_LOCAL_ETCD_IMAGE"
