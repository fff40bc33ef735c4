#!/usr/bin/env bash
# Bounded-time load test of archive-service with wrk: GET /healthz, then POST /v1/decode of a ~1 KB
# binary archive and of a ~1 KB XML archive, then POST /v1/encode of the first archive's JSON, each
# at 32 connections for DURATION seconds. Builds release, starts the server on 127.0.0.1, prints
# requests/s, p99 latency and errors, then stops the server with SIGTERM and checks that it
# drained. Total run time about 4 x DURATION + build.
#
# Environment: PORT (default 28080), DURATION (default 10), CONNECTIONS (32), THREADS (2),
# ARCHIVE and XML_ARCHIVE (default: 1,376-byte and 1,002-byte Apple fixtures), SERVER_ARGS (extra
# flags for archive-service), SKIP_BUILD=1 to reuse an existing release build, BIN to load another
# archive-service binary (a different build, for a side-by-side run).
# Usage: scripts/bench/load.sh [--bin-dir DIR]
set -euo pipefail

# shellcheck source=scripts/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
bin_dir_arguments "$@"
cd "${repo}"
PORT="${PORT:-28080}"
DURATION="${DURATION:-10}"
CONNECTIONS="${CONNECTIONS:-32}"
THREADS="${THREADS:-2}"
ARCHIVE="${ARCHIVE:-Tests/Fixtures/apple/goios_nsvalue.bin}"
XML_ARCHIVE="${XML_ARCHIVE:-Tests/Fixtures/apple/scl-NSKeyedUnarchiver-EdgeInsetsTest.plist}"
OUT="${OUT:-.build/load}"
mkdir -p "$OUT"

need_hint="apt-get install wrk" need_commands wrk
service_prepare

at_exit server_stop
# shellcheck disable=SC2086  # SERVER_ARGS is a list of flags
server_start "$PORT" "$OUT/server.log" "$service" --host 127.0.0.1 --port "$PORT" ${SERVER_ARGS:-}
for archive in "$ARCHIVE" "$XML_ARCHIVE"; do
    curl -fsS -X POST --data-binary @"$archive" "http://127.0.0.1:$PORT/v1/decode" >/dev/null \
        || die "decode of $archive failed"
done

curl -fsS -X POST --data-binary @"$ARCHIVE" "http://127.0.0.1:$PORT/v1/decode" -o "$OUT/document.json" \
    || die "decode of $ARCHIVE failed"

# post_script FILE LUA [CONTENT-TYPE]
post_script() {
    cat >"$2" <<LUA
local file = assert(io.open("$1", "rb"))
wrk.method = "POST"
wrk.body = file:read("*a")
file:close()
wrk.headers["Content-Type"] = "${3:-application/octet-stream}"
LUA
}
post_script "$ARCHIVE" "$OUT/post-binary.lua"
post_script "$XML_ARCHIVE" "$OUT/post-xml.lua"
post_script "$OUT/document.json" "$OUT/post-json.lua" application/json

summarize() {
    local name="$1" file="$2"
    local rps p99 non2xx errors
    rps=$(awk '/^Requests\/sec/ {print $2}' "$file")
    p99=$(awk '$1 == "99%" {print $2}' "$file")
    non2xx=$(awk '/Non-2xx or 3xx responses/ {print $NF}' "$file")
    errors=$(awk '/Socket errors/ {print $0}' "$file" | sed 's/^ *//')
    printf '%-10s %12s req/s   p99 %-9s non-2xx %-6s %s\n' "$name" "$rps" "$p99" "${non2xx:-0}" "${errors:-socket errors 0}"
}

run() {
    local name="$1"; shift
    wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --timeout 5s --latency "$@" >"$OUT/$name.txt" 2>&1
}

echo "archive-service load test: $CONNECTIONS connections, $THREADS wrk threads, ${DURATION}s each, $(nproc) cores"
echo "server: $service --host 127.0.0.1 --port $PORT ${SERVER_ARGS:-}"
run healthz "http://127.0.0.1:$PORT/healthz"
run decode-binary -s "$OUT/post-binary.lua" "http://127.0.0.1:$PORT/v1/decode"
run decode-xml -s "$OUT/post-xml.lua" "http://127.0.0.1:$PORT/v1/decode"
run encode -s "$OUT/post-json.lua" "http://127.0.0.1:$PORT/v1/encode"
summarize "/healthz" "$OUT/healthz.txt"
summarize "decode bin" "$OUT/decode-binary.txt"
summarize "decode xml" "$OUT/decode-xml.txt"
summarize "encode" "$OUT/encode.txt"
echo "archives: $ARCHIVE ($(wc -c <"$ARCHIVE") bytes), $XML_ARCHIVE ($(wc -c <"$XML_ARCHIVE") bytes); JSON $(wc -c <"$OUT/document.json") bytes"
echo "full wrk output in $OUT/"
server_stop || true
grep -q "stopped" "$OUT/server.log" && echo "server drained and stopped cleanly"
