#!/bin/bash
# Container health check: GET /healthz on the local port, exit 0 only on HTTP 200.
# Uses bash's /dev/tcp so the runtime image needs no curl. Contract: PORT is the
# port archive-service listens on (default 8080), as in the Dockerfile's ENV.
set -u
port="${PORT:-8080}"
exec 3<>"/dev/tcp/127.0.0.1/${port}" || exit 1
printf 'GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n' >&3
IFS=' ' read -r -t 2 version status _ <&3 || exit 1
[[ "${version}" == HTTP/1.* && "${status}" == 200 ]]
