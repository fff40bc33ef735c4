#!/usr/bin/env bash
# archive-service against the floor under its HTTP costs, side by side: a bare evhttp server
# (scripts/bench/bare_evhttp.c: the same loop count with SO_REUSEPORT listeners, no conversion,
# the service's decode reply sent as fixed bytes) and the service, each loaded in turn with wrk
# for DURATION seconds, ROUNDS times, on GET /healthz and on POST /v1/decode of ARCHIVE. Prints
# each run, then the median requests/s of each and the service's share of the bare server's.
# wrk and both servers share the machine's cores; only one server is loaded at a time.
#
# Environment: ROUNDS (default 5), DURATION (default 5), CONNECTIONS (32), THREADS (2), ARCHIVE
# (default: the 1,376-byte Apple fixture load.sh decodes), SKIP_BUILD=1 / BIN= as load.sh.
# Needs: wrk, a C compiler and libevent's headers (apt-get install -y wrk gcc libevent-dev).
# Usage: scripts/bench/bare_compare.sh [--bin-dir DIR]
set -euo pipefail

# shellcheck source=scripts/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
bin_dir_arguments "$@"
cd "${repo}"
ROUNDS="${ROUNDS:-5}"
DURATION="${DURATION:-5}"
CONNECTIONS="${CONNECTIONS:-32}"
THREADS="${THREADS:-2}"
ARCHIVE="${ARCHIVE:-Tests/Fixtures/apple/goios_nsvalue.bin}"
need_hint="apt-get install -y wrk gcc libevent-dev" need_commands wrk cc
work_dir
service_prepare

cc -O2 -o "${work}/bare_evhttp" scripts/bench/bare_evhttp.c -levent -levent_pthreads -lpthread \
  || die "bare_evhttp.c did not build (libevent-dev installed?)"

service_port=$(free_port)
at_exit server_stop
server_start "${service_port}" "${work}/service.log" "${service}" --host 127.0.0.1 --port "${service_port}" --event-loops 2
curl -fsS --data-binary @"${ARCHIVE}" "http://127.0.0.1:${service_port}/v1/decode" -o "${work}/reply.json" \
  || die "decode of ${ARCHIVE} failed"

bare_port=$(free_port)
"${work}/bare_evhttp" "${bare_port}" "${work}/reply.json" 2 >"${work}/bare.log" 2>&1 &
bare_pid=$!
at_exit kill "${bare_pid}"
wait_healthz "${bare_port}" 10 "${bare_pid}" || die "the bare server did not start ($(cat "${work}/bare.log"))"
cmp -s <(curl -fsS --data-binary @"${ARCHIVE}" "http://127.0.0.1:${bare_port}/v1/decode") "${work}/reply.json" \
  || die "the bare server's reply differs from the service's"

cat >"${work}/post.lua" <<LUA
local file = assert(io.open("${ARCHIVE}", "rb"))
wrk.method = "POST"
wrk.body = file:read("*a")
file:close()
wrk.headers["Content-Type"] = "application/octet-stream"
LUA

# requests/s of one wrk run: NAME PORT PATH [wrk args…]
rate() {
  local name=$1 port=$2 path=$3
  shift 3
  wrk -t"${THREADS}" -c"${CONNECTIONS}" -d"${DURATION}s" --timeout 5s "$@" "http://127.0.0.1:${port}${path}" >"${work}/${name}.txt" 2>&1
  grep -q "Non-2xx" "${work}/${name}.txt" && die "${name}: non-2xx replies ($(cat "${work}/${name}.txt"))"
  awk '/^Requests\/sec/ { print $2 }' "${work}/${name}.txt"
}

declare -A runs
echo "bare evhttp against archive-service: ${ROUNDS} rounds of ${DURATION}s runs, ${CONNECTIONS} connections, $(nproc) cores"
for ((round = 1; round <= ROUNDS; round++)); do
  line="round ${round}:"
  for target in healthz decode; do
    for server in bare service; do
      port=${bare_port}
      [[ "${server}" == service ]] && port=${service_port}
      if [[ "${target}" == healthz ]]; then
        value=$(rate "${server}-${target}" "${port}" /healthz)
      else
        value=$(rate "${server}-${target}" "${port}" /v1/decode -s "${work}/post.lua")
      fi
      runs[${server}-${target}]+="${value} "
      line+=" ${server} ${target} ${value}"
    done
  done
  echo "${line}"
done

median() { tr ' ' '\n' <<<"$1" | grep . | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
printf '\n| request | bare evhttp req/s | archive-service req/s | service / bare |\n|---|---:|---:|---:|\n'
for target in healthz decode; do
  bare=$(median "${runs[bare-${target}]}")
  ours=$(median "${runs[service-${target}]}")
  printf '| %s | %.0f | %.0f | %.2f |\n' "${target}" "${bare}" "${ours}" "$(awk -v a="${ours}" -v b="${bare}" 'BEGIN { print a / b }')"
done
