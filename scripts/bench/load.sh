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
set -euo pipefail

cd "$(dirname "$0")/../.."
PORT="${PORT:-28080}"
DURATION="${DURATION:-10}"
CONNECTIONS="${CONNECTIONS:-32}"
THREADS="${THREADS:-2}"
ARCHIVE="${ARCHIVE:-Tests/Fixtures/apple/goios_nsvalue.bin}"
XML_ARCHIVE="${XML_ARCHIVE:-Tests/Fixtures/apple/scl-NSKeyedUnarchiver-EdgeInsetsTest.plist}"
OUT="${OUT:-.build/load}"
mkdir -p "$OUT"

command -v wrk >/dev/null || { echo "wrk not found (apt-get install wrk)" >&2; exit 1; }
if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
    swift build -c release --product archive-service >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
fi
BIN="${BIN:-$(swift build -c release --show-bin-path)/archive-service}"

# shellcheck disable=SC2086
"$BIN" --host 127.0.0.1 --port "$PORT" ${SERVER_ARGS:-} >"$OUT/server.log" 2>&1 &
SERVER=$!
stop_server() {
    if kill -0 "$SERVER" 2>/dev/null; then
        kill -TERM "$SERVER"
        for _ in $(seq 1 100); do kill -0 "$SERVER" 2>/dev/null || break; sleep 0.1; done
        kill -0 "$SERVER" 2>/dev/null && kill -KILL "$SERVER"
    fi
    wait "$SERVER" 2>/dev/null || true
}
trap stop_server EXIT

for _ in $(seq 1 100); do
    curl -fsS "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1 && break
    sleep 0.1
done
curl -fsS "http://127.0.0.1:$PORT/healthz" >/dev/null || { echo "server did not start" >&2; cat "$OUT/server.log" >&2; exit 1; }
for archive in "$ARCHIVE" "$XML_ARCHIVE"; do
    curl -fsS -X POST --data-binary @"$archive" "http://127.0.0.1:$PORT/v1/decode" >/dev/null \
        || { echo "decode of $archive failed" >&2; exit 1; }
done

curl -fsS -X POST --data-binary @"$ARCHIVE" "http://127.0.0.1:$PORT/v1/decode" -o "$OUT/document.json" \
    || { echo "decode of $ARCHIVE failed" >&2; exit 1; }

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
echo "server: $BIN --host 127.0.0.1 --port $PORT ${SERVER_ARGS:-}"
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
stop_server
trap - EXIT
grep -q "stopped" "$OUT/server.log" && echo "server drained and stopped cleanly"
