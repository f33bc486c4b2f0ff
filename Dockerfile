# syntax=docker/dockerfile:1
# The manager and the tpcc client, for users with Docker (or BuildKit) and a registry:
#   docker build --target manager -t REGISTRY/tpcc-operator/manager:TAG .
#   docker build --target client  -t REGISTRY/tpcc-operator/tpcc:TAG .
# Both are static Go binaries on distroless, running as the nonroot user (65532), which the
# operator's pods and Jobs also require. Offline, hack/images.sh packs the same binaries into
# images without a Docker daemon.
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
