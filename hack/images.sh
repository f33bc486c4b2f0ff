#!/usr/bin/env bash
# Builds every image the local cluster and the demo need, without a Docker daemon or a registry,
# from the Go module proxy and Debian packages only, as docker archives packed by hack/mkimg:
#
#   cluster   pause (hack/cluster/pause), busybox (Debian busybox-static), CoreDNS v1.15.0,
#             local-path-provisioner v0.0.30 (+ its deploy manifest, patched for offline use),
#             metrics-server v0.9.0 (the metrics.k8s.io API behind kubectl top); the three built
#             in hack/upstream's module graph, whose go.mod names their versions
#   cnpg      CloudNativePG's operator v1.29.1 (+ its release manifest, patched for local images)
#             and a PostgreSQL 15 operand image assembled from Debian bookworm's packages; built
#             in a module graph of its own: it does not compile against the project's
#             k8s.io/api v0.37 ("VolumeMount does not satisfy comparable")
#   project   the tpcc-operator manager and the tpcc client, from this checkout; the client image
#             also holds fio 3.33 (the storage calibration's tool), built statically from Debian
#             bookworm's source package with its I/O engines for Ceph, GlusterFS, RDMA, PMEM off
#   injector  the opt-in fault injector (hack/fault-injector.sh): this checkout's cmd/fault-injector
#             on Debian bookworm's iptables, iproute2 and util-linux (nsenter), runs as root
#   monitoring  Prometheus 3.16.0 (its Go module v0.316.0, with no service discovery but static
#             targets: build tag remove_all_sd), which scrapes the operator in the e2e
#             (hack/cluster/install.sh prometheus; make demo does not build it)
#
# usage: hack/images.sh [cluster|cnpg|project|injector|monitoring]...   (default: cluster, cnpg, project)
# Prints the folder holding the archives and images.env (the image names to use).
# env:   TPCC_CACHE (~/.cache/tpcc-operator): heavy third-party builds are cached there by version,
#        so a warm machine rebuilds only the project's images.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${TPCC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tpcc-operator}
IMAGES="$CACHE/images"
# CoreDNS, local-path-provisioner and metrics-server are built in hack/upstream's module graph, at
# its go.mod's versions, their dependencies shared with the project's (hack/upstream/sync.sh).
UPSTREAM="$ROOT/hack/upstream/build.sh"
COREDNS_VERSION=$("$UPSTREAM" version github.com/coredns/coredns)
LOCAL_PATH_VERSION=$("$UPSTREAM" version github.com/rancher/local-path-provisioner)
METRICS_SERVER_VERSION=$("$UPSTREAM" version sigs.k8s.io/metrics-server)
# Prometheus' Go module is versioned v0.<minor*100+...>: v0.316.0 is Prometheus 3.16.0.
PROMETHEUS_MODULE_VERSION=v0.316.0
PROMETHEUS_VERSION=3.16.0
CNPG_VERSION=1.29.1
PG_MAJOR=15
# fio: Debian bookworm's source (fio_3.33.orig.tar.gz, its checksum from fio_3.33-3.dsc).
FIO_VERSION=3.33
FIO_SHA256=d2410e13e0f379d061d077cc5ae325835bb7c6186aa7bafc1df954cbc9b014fc
DEBIAN_SUITE=bookworm
PGBOUNCER_SUITE=trixie
DEBIAN_MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
export GOFLAGS=-buildvcs=false CGO_ENABLED=0

log() { echo "images: $*" >&2; }
die() { echo "images: $*" >&2; exit 1; }
mkdir -p "$IMAGES" "$CACHE/bin"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

MKIMG="$CACHE/bin/mkimg"
# Built beside and renamed: another images.sh may be running the current one.
(cd "$ROOT" && go build -o "$MKIMG.$$" ./hack/mkimg && mv "$MKIMG.$$" "$MKIMG")

# Images run as root nowhere except where the upstream image does; /tmp is world-writable.
minimal_root() { # DIR: /etc/passwd with root and nonroot (65532), /tmp 1777
  mkdir -p "$1/etc" "$1/tmp"
  chmod 1777 "$1/tmp"
  printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' > "$1/etc/passwd"
  printf 'root:x:0:\nnonroot:x:65532:\n' > "$1/etc/group"
  if [ -f /etc/ssl/certs/ca-certificates.crt ]; then
    mkdir -p "$1/etc/ssl/certs" && cp /etc/ssl/certs/ca-certificates.crt "$1/etc/ssl/certs/"
  fi
}

# Third-party archives are named by version and packed once; the project's are packed every time.
packed() { [ -s "$IMAGES/$1" ]; }

go_install() { # MODULE@VERSION DEST_DIR [ldflags]: go install into a per-version folder, once
  local dest=$2 name
  name=$(basename "${1%@*}")
  if [ ! -x "$dest/$name" ]; then
    local start; start=$(date +%s)
    GOBIN="$dest" go install -trimpath -ldflags "-s -w ${3:-}" "$1" >&2
    log "$1 built in $(($(date +%s) - start))s"
  fi
  echo "$dest/$name"
}

module_dir() { # MODULE@VERSION: the module's source folder in the module cache
  go mod download -json "$1" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p'
}

upstream_build() { # PACKAGE DEST_DIR [ldflags]: build a main of hack/upstream into a per-version folder, once
  local dest=$2 name
  name=$(basename "$1")
  if [ ! -x "$dest/$name" ]; then
    local start; start=$(date +%s)
    mkdir -p "$dest"
    "$UPSTREAM" build "$1" "$dest/$name.tmp" "${3:-}" >&2
    mv "$dest/$name.tmp" "$dest/$name"
    log "$1 built in $(($(date +%s) - start))s"
  fi
  echo "$dest/$name"
}

build_cluster_images() {
  local work; work=$(mktemp -d -p "$WORK")
  if ! packed pause-3.10.1.tar; then
    (cd "$ROOT" && go build -trimpath -ldflags "-s -w" -o "$work/pause" ./hack/cluster/pause)
    "$MKIMG" -tag registry.k8s.io/pause:3.10.1 -file "$work/pause=/pause:0755" -entrypoint /pause -o "$IMAGES/pause-3.10.1.tar" >&2
  fi

  if ! packed busybox.tar; then
    [ -x /bin/busybox ] || die "Debian's busybox-static is missing: apt-get install busybox-static"
    mkdir -p "$work/busybox/bin"
    cp /bin/busybox "$work/busybox/bin/busybox"
    for applet in $(/bin/busybox --list); do [ "$applet" = busybox ] || ln -s busybox "$work/busybox/bin/$applet"; done
    minimal_root "$work/busybox"
    "$MKIMG" -tag localhost/busybox:debian -root "$work/busybox" -cmd sh -env PATH=/bin -o "$IMAGES/busybox.tar" >&2
  fi

  if ! packed "coredns-$COREDNS_VERSION-slim.tar"; then
    # With the plugins hack/cluster/coredns.yaml's Corefile uses and no others (hack/upstream/coredns/main.go).
    local coredns; coredns=$(upstream_build github.com/tpcc-operator/tpcc-operator/hack/upstream/coredns "$CACHE/coredns-$COREDNS_VERSION-slim")
    mkdir -p "$work/coredns" && minimal_root "$work/coredns"
    "$MKIMG" -tag "localhost/coredns:${COREDNS_VERSION#v}" -root "$work/coredns" -file "$coredns=/coredns:0755" \
      -entrypoint /coredns -user 65532:65532 -o "$IMAGES/coredns-$COREDNS_VERSION-slim.tar" >&2
  fi

  if ! packed "local-path-provisioner-$LOCAL_PATH_VERSION.tar"; then
    local lpp; lpp=$(upstream_build "github.com/rancher/local-path-provisioner" \
      "$CACHE/local-path-provisioner-$LOCAL_PATH_VERSION" "-X main.VERSION=$LOCAL_PATH_VERSION")
    mkdir -p "$work/lpp" && minimal_root "$work/lpp"
    "$MKIMG" -tag "localhost/local-path-provisioner:$LOCAL_PATH_VERSION" -root "$work/lpp" \
      -file "$lpp=/usr/bin/local-path-provisioner:0755" -entrypoint /usr/bin/local-path-provisioner \
      -o "$IMAGES/local-path-provisioner-$LOCAL_PATH_VERSION.tar" >&2
  fi

  if ! packed "metrics-server-$METRICS_SERVER_VERSION.tar"; then
    # The version is stamped where upstream's Makefile stamps it (client-go's version package).
    local ms; ms=$(upstream_build "sigs.k8s.io/metrics-server/cmd/metrics-server" \
      "$CACHE/metrics-server-$METRICS_SERVER_VERSION" "-X k8s.io/client-go/pkg/version.gitVersion=$METRICS_SERVER_VERSION")
    mkdir -p "$work/ms" && minimal_root "$work/ms"
    "$MKIMG" -tag "localhost/metrics-server:$METRICS_SERVER_VERSION" -root "$work/ms" \
      -file "$ms=/metrics-server:0755" -entrypoint /metrics-server -user 65532:65532 \
      -o "$IMAGES/metrics-server-$METRICS_SERVER_VERSION.tar" >&2
  fi

  cp "$(module_dir "github.com/rancher/local-path-provisioner@$LOCAL_PATH_VERSION")/deploy/local-path-storage.yaml" \
    "$IMAGES/local-path-storage.upstream.yaml"
  chmod u+w "$IMAGES/local-path-storage.upstream.yaml"
}

build_monitoring_images() {
  local work; work=$(mktemp -d -p "$WORK")
  if ! packed "prometheus-$PROMETHEUS_VERSION.tar"; then
    # Static scrape targets need no service discovery: remove_all_sd leaves out the cloud SDKs
    # (measured cold on 2 shared cores: ~290 s user + 90 s system CPU, 52 MB binary). The web UI's
    # assets are not embedded (no builtinassets tag); the HTTP API is all the e2e uses.
    local prom; prom=$(GOFLAGS="$GOFLAGS -tags=remove_all_sd" go_install \
      "github.com/prometheus/prometheus/cmd/prometheus@$PROMETHEUS_MODULE_VERSION" "$CACHE/prometheus-$PROMETHEUS_VERSION" \
      "-X github.com/prometheus/common/version.Version=$PROMETHEUS_VERSION")
    mkdir -p "$work/prom" && minimal_root "$work/prom"
    "$MKIMG" -tag "localhost/prometheus:$PROMETHEUS_VERSION" -root "$work/prom" \
      -file "$prom=/bin/prometheus:0755" -dir /prometheus:0755 -entrypoint /bin/prometheus -user 65532:65532 -workdir /prometheus \
      -o "$IMAGES/prometheus-$PROMETHEUS_VERSION.tar" >&2
  fi
}

build_cnpg_images() {
  local work; work=$(mktemp -d -p "$WORK")
  local out="$CACHE/cnpg-$CNPG_VERSION"
  mkdir -p "$out"
  if [ ! -x "$out/manager" ]; then
    # A scratch module requiring CloudNativePG builds its manager from the module as published.
    mkdir -p "$work/mod" && cd "$work/mod"
    printf 'module cnpgbuild\n\ngo 1.26\n\nrequire github.com/cloudnative-pg/cloudnative-pg v%s\n' "$CNPG_VERSION" > go.mod
    printf '//go:build tools\n\npackage tools\n\nimport _ "github.com/cloudnative-pg/cloudnative-pg/cmd/manager"\n' > tools.go
    GOFLAGS=-mod=mod go mod tidy >&2
    local start; start=$(date +%s)
    go build -trimpath -ldflags "-s -w -X github.com/cloudnative-pg/cloudnative-pg/pkg/versions.buildVersion=$CNPG_VERSION" \
      -o "$out/manager.tmp" github.com/cloudnative-pg/cloudnative-pg/cmd/manager >&2
    mv "$out/manager.tmp" "$out/manager"
    log "CloudNativePG $CNPG_VERSION manager built in $(($(date +%s) - start))s"
    cd "$ROOT"
  fi
  # The operator finds its "available architectures" by globbing operator/manager_* relative to
  # its working directory, and bootstraps instance pods by copying ./manager: keep the official
  # layout, with / as the working directory.
  packed "cnpg-operator-$CNPG_VERSION.tar" ||
    "$MKIMG" -tag "localhost/cnpg/cloudnative-pg:$CNPG_VERSION" -file "$out/manager=/operator/manager_amd64:0755" \
      -link /manager=operator/manager_amd64 -dir /tmp:1777 -workdir / -user 65532:65532 -entrypoint /manager \
      -o "$IMAGES/cnpg-operator-$CNPG_VERSION.tar" >&2
  cp "$(module_dir "github.com/cloudnative-pg/cloudnative-pg@v$CNPG_VERSION")/releases/cnpg-$CNPG_VERSION.yaml" \
    "$IMAGES/cnpg.upstream.yaml"
  chmod u+w "$IMAGES/cnpg.upstream.yaml"

  build_postgres_image
  build_pgbouncer_image
}

# debian_rootfs WHAT ROOTFS SUITE PACKAGES: a minimal Debian SUITE with PACKAGES (comma-separated)
# assembled into ROOTFS by debootstrap, its packages cached under $CACHE/debs.
debian_rootfs() {
  [ "$(id -u)" = 0 ] || die "assembling the $1 image runs debootstrap, which needs root"
  command -v debootstrap >/dev/null || die "debootstrap is missing: apt-get install debootstrap"
  rm -rf "$2" && mkdir -p "$2" "$CACHE/debs"
  debootstrap --variant=minbase --cache-dir="$CACHE/debs" --include="$4" "$3" "$2" "$DEBIAN_MIRROR" >&2
}

build_postgres_image() {
  local rootfs="$CACHE/postgresql-$PG_MAJOR-$DEBIAN_SUITE/rootfs" stamp="$CACHE/postgresql-$PG_MAJOR-$DEBIAN_SUITE/version"
  if [ ! -s "$stamp" ]; then
    local start; start=$(date +%s)
    debian_rootfs PostgreSQL "$rootfs" "$DEBIAN_SUITE" "postgresql-$PG_MAJOR"
    # CloudNativePG runs PostgreSQL as uid 26 named postgres (initdb resolves the uid, local peer
    # authentication maps the name), creates its own data directory, and needs no JIT.
    chroot "$rootfs" /bin/sh -eu >&2 <<EOF
pg_dropcluster $PG_MAJOR main 2>/dev/null || true
rm -rf /var/lib/postgresql/$PG_MAJOR /etc/postgresql/$PG_MAJOR
sed -ri 's/^#?\s*(create_main_cluster)\s*=.*$/\1 = false/' /etc/postgresql-common/createcluster.conf
usermod -u 26 postgres
groupmod -g 26 postgres 2>/dev/null || true
chown -R 26:26 /var/lib/postgresql /run/postgresql /var/log/postgresql
apt-get clean
rm -rf /var/lib/apt/lists/* /var/cache/debconf/*-old /var/log/*
EOF
    rm -rf "$rootfs"/usr/share/{doc,man,info,locale}/* "$rootfs/usr/lib/postgresql/$PG_MAJOR/lib/"{llvmjit*,bitcode} \
      "$rootfs"/usr/lib/x86_64-linux-gnu/libLLVM-*.so* "$rootfs"/usr/lib/x86_64-linux-gnu/libz3.so*
    chroot "$rootfs" dpkg-query -W -f '${Version}' "postgresql-$PG_MAJOR" | sed 's/-.*//' > "$stamp"
    log "PostgreSQL $(cat "$stamp") rootfs assembled in $(($(date +%s) - start))s"
  fi
  # CloudNativePG reads the major version from the image tag, which must start with it.
  local tag; tag="localhost/cnpg/postgresql:$(cat "$stamp")-$DEBIAN_SUITE"
  packed "postgresql-$(cat "$stamp")-$DEBIAN_SUITE.tar" ||
    "$MKIMG" -tag "$tag" -root "$rootfs" -user 26 -workdir / \
      -env "PATH=/usr/lib/postgresql/$PG_MAJOR/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
      -env LANG=C.UTF-8 -o "$IMAGES/postgresql-$(cat "$stamp")-$DEBIAN_SUITE.tar" >&2
  echo "$tag" > "$IMAGES/postgresql.tag"
}

# build_pgbouncer_image assembles the image CloudNativePG runs a Pooler's PgBouncer in: Debian's
# pgbouncer package (from $PGBOUNCER_SUITE: CloudNativePG writes auth_dbname, which PgBouncer knows
# from 1.19, and bookworm's is 1.18), started by CloudNativePG's own manager as /usr/bin/pgbouncer
# (Debian installs /usr/sbin/pgbouncer) under uid 998.
build_pgbouncer_image() {
  local rootfs="$CACHE/pgbouncer-$PGBOUNCER_SUITE/rootfs" stamp="$CACHE/pgbouncer-$PGBOUNCER_SUITE/version"
  if [ ! -s "$stamp" ]; then
    local start; start=$(date +%s)
    debian_rootfs PgBouncer "$rootfs" "$PGBOUNCER_SUITE" pgbouncer
    chroot "$rootfs" /bin/sh -eu >&2 <<'EOF'
ln -sf /usr/sbin/pgbouncer /usr/bin/pgbouncer
apt-get clean
rm -rf /var/lib/apt/lists/* /var/cache/debconf/*-old /var/log/*
EOF
    rm -rf "$rootfs"/usr/share/{doc,man,info,locale}/*
    chroot "$rootfs" dpkg-query -W -f '${Version}' pgbouncer | sed 's/-.*//' > "$stamp"
    log "PgBouncer $(cat "$stamp") rootfs assembled in $(($(date +%s) - start))s"
  fi
  local tag; tag="localhost/cnpg/pgbouncer:$(cat "$stamp")-$PGBOUNCER_SUITE"
  packed "pgbouncer-$(cat "$stamp")-$PGBOUNCER_SUITE.tar" ||
    "$MKIMG" -tag "$tag" -root "$rootfs" -user 998:996 -workdir / \
      -env "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
      -env LANG=C.UTF-8 -o "$IMAGES/pgbouncer-$(cat "$stamp")-$PGBOUNCER_SUITE.tar" >&2
  echo "$tag" > "$IMAGES/pgbouncer.tag"
}

# build_fio builds fio once per version into $CACHE/fio-$FIO_VERSION/fio: static (the client image
# has no libc), without the engines whose libraries would be needed (the calibration uses
# ioengine=sync), stripped (~2.8 MB). About a minute on two cores.
build_fio() {
  local dir="$CACHE/fio-$FIO_VERSION"
  [ -x "$dir/fio" ] && return 0
  command -v gcc >/dev/null && command -v make >/dev/null ||
    die "building fio needs gcc, make and libc6-dev: apt-get install gcc make libc6-dev"
  local src; src=$(mktemp -d -p "$WORK")
  local start; start=$(date +%s)
  curl -fsSL -o "$src/fio.tar.gz" "$DEBIAN_MIRROR/pool/main/f/fio/fio_$FIO_VERSION.orig.tar.gz"
  echo "$FIO_SHA256  $src/fio.tar.gz" | sha256sum -c --quiet - >&2 || die "fio_$FIO_VERSION.orig.tar.gz: checksum mismatch"
  tar -xzf "$src/fio.tar.gz" -C "$src"
  (cd "$src/fio-$FIO_VERSION" &&
    ./configure --build-static --disable-native --disable-numa --disable-rdma --disable-rados --disable-rbd \
      --disable-http --disable-gfapi --disable-pmem --disable-lex --disable-xnvme --disable-libzbc \
      --disable-tcmalloc --disable-dfs --disable-shm >/dev/null &&
    make -j"$(nproc)" fio >/dev/null 2>&1) || die "building fio $FIO_VERSION failed (in $src)"
  mkdir -p "$dir"
  strip -o "$dir/fio.$$" "$src/fio-$FIO_VERSION/fio" && mv "$dir/fio.$$" "$dir/fio"
  log "fio $("$dir/fio" --version) built in $(($(date +%s) - start))s"
}

build_project_images() {
  local work; work=$(mktemp -d -p "$WORK")
  cd "$ROOT"
  go build -trimpath -ldflags "-s -w" -o "$work/manager" ./cmd/manager
  go build -trimpath -ldflags "-s -w" -o "$work/tpcc" ./cmd/tpcc
  build_fio
  cp "$CACHE/fio-$FIO_VERSION/fio" "$work/fio"
  # Tag by content: a rebuilt binary gets a new tag, so upgrading the release rolls the manager.
  local tag; tag=$(cat "$work/manager" "$work/tpcc" "$work/fio" | sha256sum | cut -c1-12)
  mkdir -p "$work/root" "$IMAGES/project" && minimal_root "$work/root"
  "$MKIMG" -tag "localhost/tpcc-operator/manager:$tag" -root "$work/root" -file "$work/manager=/manager:0755" \
    -user 65532:65532 -entrypoint /manager -o "$IMAGES/project/manager.tar" >&2
  "$MKIMG" -tag "localhost/tpcc-operator/tpcc:$tag" -root "$work/root" -file "$work/tpcc=/tpcc:0755" -file "$work/fio=/fio:0755" \
    -user 65532:65532 -entrypoint /tpcc -o "$IMAGES/project/tpcc.tar" >&2
  echo "$tag" > "$IMAGES/project.tag"
}

# build_injector_image: the fault injector's tools from Debian (a rootfs assembled once, cached) and
# its binary from this checkout, tagged by content.
build_injector_image() {
  local rootfs="$CACHE/injector-$DEBIAN_SUITE/rootfs" stamp="$CACHE/injector-$DEBIAN_SUITE/version"
  if [ ! -s "$stamp" ]; then
    local start; start=$(date +%s)
    debian_rootfs "fault injector's" "$rootfs" "$DEBIAN_SUITE" iptables,iproute2,util-linux
    chroot "$rootfs" /bin/sh -eu >&2 <<'EOS'
apt-get clean
rm -rf /var/lib/apt/lists/* /var/cache/debconf/*-old /var/log/*
EOS
    rm -rf "$rootfs"/usr/share/{doc,man,info,locale}/*
    chroot "$rootfs" dpkg-query -W -f '${Version}' iptables > "$stamp"
    log "fault injector rootfs (iptables $(cat "$stamp")) assembled in $(($(date +%s) - start))s"
  fi
  local work; work=$(mktemp -d -p "$WORK")
  (cd "$ROOT" && go build -trimpath -ldflags "-s -w" -o "$work/fault-injector" ./cmd/fault-injector)
  local tag; tag=$(cat "$work/fault-injector" "$stamp" | sha256sum | cut -c1-12)
  mkdir -p "$IMAGES/project"
  "$MKIMG" -tag "localhost/tpcc-operator/fault-injector:$tag" -root "$rootfs" -file "$work/fault-injector=/fault-injector:0755" \
    -user 0:0 -workdir / -entrypoint /fault-injector \
    -env "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" -o "$IMAGES/project/fault-injector.tar" >&2
  echo "$tag" > "$IMAGES/injector.tag"
}

write_env() { # atomically: another images.sh (.ci/run builds Prometheus beside make demo) may be reading it
  {
    echo "PAUSE_IMAGE=registry.k8s.io/pause:3.10.1"
    echo "BUSYBOX_IMAGE=localhost/busybox:debian"
    echo "COREDNS_IMAGE=localhost/coredns:${COREDNS_VERSION#v}"
    echo "LOCAL_PATH_IMAGE=localhost/local-path-provisioner:$LOCAL_PATH_VERSION"
    echo "METRICS_SERVER_IMAGE=localhost/metrics-server:$METRICS_SERVER_VERSION"
    echo "PROMETHEUS_IMAGE=localhost/prometheus:$PROMETHEUS_VERSION"
    echo "PROMETHEUS_ARCHIVE=$IMAGES/prometheus-$PROMETHEUS_VERSION.tar"
    echo "CNPG_OPERATOR_IMAGE=localhost/cnpg/cloudnative-pg:$CNPG_VERSION"
    if [ -f "$IMAGES/postgresql.tag" ]; then
      echo "POSTGRES_IMAGE=$(cat "$IMAGES/postgresql.tag")"
      echo "POSTGRES_ARCHIVE=$IMAGES/postgresql-$(cat "$IMAGES/postgresql.tag" | sed 's/.*://').tar"
    fi
    if [ -f "$IMAGES/pgbouncer.tag" ]; then
      echo "PGBOUNCER_IMAGE=$(cat "$IMAGES/pgbouncer.tag")"
      echo "PGBOUNCER_ARCHIVE=$IMAGES/pgbouncer-$(cat "$IMAGES/pgbouncer.tag" | sed 's/.*://').tar"
    fi
    echo "CNPG_OPERATOR_ARCHIVE=$IMAGES/cnpg-operator-$CNPG_VERSION.tar"
    echo "CLUSTER_ARCHIVES=\"$IMAGES/pause-3.10.1.tar $IMAGES/busybox.tar $IMAGES/coredns-$COREDNS_VERSION-slim.tar $IMAGES/local-path-provisioner-$LOCAL_PATH_VERSION.tar $IMAGES/metrics-server-$METRICS_SERVER_VERSION.tar\""
    if [ -f "$IMAGES/injector.tag" ]; then
      echo "FAULT_INJECTOR_IMAGE=localhost/tpcc-operator/fault-injector:$(cat "$IMAGES/injector.tag")"
      echo "FAULT_INJECTOR_ARCHIVE=$IMAGES/project/fault-injector.tar"
    fi
    if [ -f "$IMAGES/project.tag" ]; then
      echo "MANAGER_IMAGE=localhost/tpcc-operator/manager:$(cat "$IMAGES/project.tag")"
      echo "CLIENT_IMAGE=localhost/tpcc-operator/tpcc:$(cat "$IMAGES/project.tag")"
      echo "PROJECT_ARCHIVES=\"$IMAGES/project/manager.tar $IMAGES/project/tpcc.tar\""
    fi
  } > "$IMAGES/images.env.$$"
  mv "$IMAGES/images.env.$$" "$IMAGES/images.env"
}

targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(cluster cnpg project)
for target in "${targets[@]}"; do
  start=$(date +%s)
  case "$target" in
    cluster) build_cluster_images ;;
    cnpg) build_cnpg_images ;;
    project) build_project_images ;;
    injector) build_injector_image ;;
    monitoring) build_monitoring_images ;;
    *) die "unknown target '$target': want cluster, cnpg, project, injector or monitoring" ;;
  esac
  log "$target images ready in $(($(date +%s) - start))s"
done
write_env
echo "$IMAGES"
