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

FROM gcr.io/distroless/static-debian12:nonroot AS client
COPY --from=build /out/tpcc /tpcc
USER 65532:65532
ENTRYPOINT ["/tpcc"]

# The last stage is the default target: the manager.
FROM gcr.io/distroless/static-debian12:nonroot AS manager
COPY --from=build /out/manager /manager
USER 65532:65532
ENTRYPOINT ["/manager"]
