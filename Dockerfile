# ArchiveService container image.
#   docker build -t archive-service .
#   docker run --rm -p 8080:8080 archive-service
#   docker run --rm -p 9000:9000 archive-service --port 9000 --workers 2   # flags after the image
# Stage 1 builds both executables with the Swift runtime linked in statically, so the
# runtime stage needs no Swift toolchain: only libevent (the HTTP front) and zlib (gzip and
# deflate bodies, which debian:bookworm-slim already has) plus libc6, libstdc++6, libgcc-s1.
# scripts/ci/rootfs-check.sh proves the runtime stage without Docker, reading
# RUNTIME_PACKAGES from this file: keep that ARG the only list of runtime packages.

ARG SWIFT_IMAGE=swift:6.3.1-bookworm
ARG RUNTIME_IMAGE=debian:bookworm-slim

FROM ${SWIFT_IMAGE} AS build
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends libevent-dev zlib1g-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# Dependencies first, so source edits do not refetch them.
COPY Package.swift ./
RUN swift package resolve
# Tests/ is copied because SwiftPM checks every declared target's folder exists; openapi.yaml
# because the server compiles it in (Sources/ArchiveServer/Resources/openapi.yaml links to it).
# Only debug info is stripped: the symbol table stays for Swift's crash backtraces.
COPY openapi.yaml ./
COPY Sources ./Sources
COPY Tests ./Tests
RUN swift build -c release --static-swift-stdlib \
 && bin="$(swift build -c release --static-swift-stdlib --show-bin-path)" \
 && install -D -m 0755 "${bin}/archive-service" /out/archive-service \
 && install -D -m 0755 "${bin}/archive-tool" /out/archive-tool \
 && strip --strip-debug /out/archive-service /out/archive-tool

FROM ${RUNTIME_IMAGE}
ARG RUNTIME_PACKAGES="libevent-2.1-7 libevent-pthreads-2.1-7 zlib1g"
# Versions are not pinned: bookworm's point and security releases replace them on the
# mirror, and a pin to a superseded version makes the build fail.
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends ${RUNTIME_PACKAGES} \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --gid 10001 archive \
 && useradd --uid 10001 --gid archive --no-log-init --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin archive
COPY --from=build /out/archive-service /out/archive-tool /usr/local/bin/
COPY container/healthcheck.sh /usr/local/bin/healthcheck

# Configuration (every setting also has a command-line flag; see README).
# WORKERS unset = one worker per CPU the container may use (docker run --cpus or --cpuset-cpus,
# else the host's cores); QUEUE_LIMIT / MAX_BODY_SIZE / TIMEOUT unset =
# the service's built-in defaults. MEMORY_BUDGET unset = 3/4 of the container's memory limit
# (docker run --memory), so no traffic drives the process past it; MAX_CONNECTIONS unset = 1,024.
ENV HOST=0.0.0.0 \
    PORT=8080 \
    STACK_SIZE=8M \
    LOG_LEVEL=info

USER 10001:10001
EXPOSE 8080
# The service answers /healthz on its event loop, never behind queued work. The check finds the
# port and address as the server does: --port/--host on its command line (/proc/1/cmdline), else
# PORT/HOST, else 8080; so flags given to docker run are followed.
HEALTHCHECK --interval=15s --timeout=3s --start-period=5s --retries=3 \
  CMD ["/usr/local/bin/healthcheck"]
# SIGTERM drains in-flight requests; give it time before SIGKILL (docker stop -t).
STOPSIGNAL SIGTERM
# Exec form: the server is PID 1, receives SIGTERM itself, and the health check reads its flags.
ENTRYPOINT ["/usr/local/bin/archive-service"]
