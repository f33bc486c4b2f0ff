# syntax=docker/dockerfile:1
# The manager and the tpcc client, for users with Docker (or BuildKit) and a registry:
#   make docker-build docker-push IMG_PREFIX=registry.example.com/tpcc-operator TAG=0.1.0
# builds IMG_PREFIX/manager:TAG (--target manager) and IMG_PREFIX/tpcc:TAG (--target client) and
# pushes them; the Helm chart names both with image.prefix and image.tag. Both are static Go
# binaries on distroless, running as the nonroot user (65532), which the operator's pods and Jobs
# also require. Offline, hack/images.sh packs the same binaries into images without a Docker
# daemon (hack/hack_test.go checks this file copies every package they import).
ARG GO_VERSION=1.26

FROM --platform=$BUILDPLATFORM golang:${GO_VERSION} AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY api/ api/
COPY cmd/ cmd/
COPY controllers/ controllers/
COPY internal/ internal/
ARG TARGETOS=linux
ARG TARGETARCH=amd64
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH \
    go build -trimpath -ldflags "-s -w" -o /out/manager ./cmd/manager && \
    CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH \
    go build -trimpath -ldflags "-s -w" -o /out/tpcc ./cmd/tpcc

# fio, the storage calibration's tool, as hack/images.sh builds it: statically from Debian
# bookworm's source (checksum from fio_3.33-3.dsc), without the engines needing other libraries.
FROM debian:bookworm AS fio
ARG FIO_VERSION=3.33
ARG FIO_SHA256=d2410e13e0f379d061d077cc5ae325835bb7c6186aa7bafc1df954cbc9b014fc
RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends gcc make libc6-dev curl ca-certificates >/dev/null && \
    curl -fsSL -o /fio.tar.gz "https://deb.debian.org/debian/pool/main/f/fio/fio_${FIO_VERSION}.orig.tar.gz" && \
    echo "${FIO_SHA256}  /fio.tar.gz" | sha256sum -c - && tar -xzf /fio.tar.gz -C / && cd /fio-${FIO_VERSION} && \
    ./configure --build-static --disable-native --disable-numa --disable-rdma --disable-rados --disable-rbd \
      --disable-http --disable-gfapi --disable-pmem --disable-lex --disable-xnvme --disable-libzbc \
      --disable-tcmalloc --disable-dfs --disable-shm && \
    make -j"$(nproc)" fio && strip -o /out-fio fio

FROM gcr.io/distroless/static-debian12:nonroot AS client
COPY --from=build /out/tpcc /tpcc
COPY --from=fio /out-fio /fio
USER 65532:65532
ENTRYPOINT ["/tpcc"]

# The last stage is the default target: the manager.
FROM gcr.io/distroless/static-debian12:nonroot AS manager
COPY --from=build /out/manager /manager
USER 65532:65532
ENTRYPOINT ["/manager"]
