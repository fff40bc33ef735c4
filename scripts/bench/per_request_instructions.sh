#!/usr/bin/env bash
# Instructions per request, the service against the bare evhttp server (bare_evhttp.c): each
# server runs under callgrind, takes N1 and then (in a fresh run) N2 requests one after another
# on one keep-alive connection, and the difference of the two runs' counts over N2 − N1 is what
# one request costs, start-up and shutdown cancelled out. Deterministic where wall time here
# swings by ±20 %; it counts the servers' instructions only (not the client's, not the
# kernel's), so it says where a request's CPU goes, not the rate a load generator would see.
#
# Environment: N1 (default 1000), N2 (default 3000), ARCHIVE (default: the 1,376-byte Apple
# fixture load.sh decodes), SKIP_BUILD=1 / BIN= as load.sh. The service runs with
# --log-level warning (no access lines: the bare server writes none).
# Needs: valgrind, python3, a C compiler and libevent's headers.
# Usage: scripts/bench/per_request_instructions.sh [--bin-dir DIR]
set -euo pipefail

# shellcheck source=scripts/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
bin_dir_arguments "$@"
cd "${repo}"
N1="${N1:-1000}"
N2="${N2:-3000}"
ARCHIVE="${ARCHIVE:-Tests/Fixtures/apple/goios_nsvalue.bin}"
need_hint="apt-get install -y valgrind gcc libevent-dev" need_commands valgrind cc python3
work_dir
service_prepare
cc -O2 -o "${work}/bare_evhttp" scripts/bench/bare_evhttp.c -levent -levent_pthreads -lpthread \
  || die "bare_evhttp.c did not build (libevent-dev installed?)"

cat >"${work}/send.py" <<'PY'
import http.client, sys
port, count, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
body = open(sys.argv[4], "rb").read() if len(sys.argv) > 4 else None
connection = http.client.HTTPConnection("127.0.0.1", port)
for _ in range(count):
    if body is None:
        connection.request("GET", path)
    else:
        connection.request("POST", path, body=body, headers={"Content-Type": "application/octet-stream"})
    reply = connection.getresponse()
    reply.read()
    assert reply.status == 200, reply.status
PY

# The service's reply to the archive, which the bare server sends as it is.
port=$(free_port)
at_exit server_stop
server_start "${port}" "${work}/service.log" "${service}" --host 127.0.0.1 --port "${port}"
curl -fsS --data-binary @"${ARCHIVE}" "http://127.0.0.1:${port}/v1/decode" -o "${work}/reply.json" || die "decode of ${ARCHIVE} failed"
server_stop

# instructions SERVER REQUESTS PATH [BODY]: the count of one run under callgrind
instructions() {
  local server=$1 count=$2 path=$3 body=${4:-} port pid
  port=$(free_port)
  local command=("${service}" --host 127.0.0.1 --port "${port}" --log-level warning)
  [[ "${server}" == bare ]] && command=("${work}/bare_evhttp" "${port}" "${work}/reply.json" 2)
  env -i PATH=/usr/bin:/bin GLIBC_TUNABLES= valgrind --tool=callgrind --callgrind-out-file="${work}/run.cg" \
    "${command[@]}" >"${work}/run.log" 2>&1 &
  pid=$!
  wait_healthz "${port}" 60 "${pid}" || die "${server} did not start under valgrind ($(tail -5 "${work}/run.log"))"
  python3 "${work}/send.py" "${port}" "${count}" "${path}" ${body:+"${body}"}
  kill -TERM "${pid}"
  wait "${pid}" || true
  awk '/refs:/ { gsub(",", "", $NF); print $NF }' "${work}/run.log"
}

printf '| request | server | instructions per request |\n|---|---|---:|\n'
for request in healthz decode; do
  for server in bare service; do
    if [[ "${request}" == healthz ]]; then
      first=$(instructions "${server}" "${N1}" /healthz)
      second=$(instructions "${server}" "${N2}" /healthz)
    else
      first=$(instructions "${server}" "${N1}" /v1/decode "${ARCHIVE}")
      second=$(instructions "${server}" "${N2}" /v1/decode "${ARCHIVE}")
    fi
    printf '| %s | %s | %d |\n' "${request}" "${server}" "$(( (second - first) / (N2 - N1) ))"
  done
done
