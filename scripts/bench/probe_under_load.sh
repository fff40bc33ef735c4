#!/usr/bin/env bash
# /healthz latency under CLIENTS concurrent decodes of a SIZE MB league save on this machine, for
# each worker niceness in NICES (the default, 5, against 10 and 0: the loops' priority over the workers
# side by side), RUNS times each, in turn. Starts a release build of archive-service with the
# defaults but --worker-nice (2 workers and 2 loops on 2 cores) and --max-body-size 64M.
#
# Usage: scripts/bench/probe_under_load.sh      Environment: PORT (28095), CLIENTS (16), SIZE (47),
#   SECONDS (20), RUNS (3), NICES ("5 10 0"), SKIP_BUILD=1, BIN.
set -euo pipefail
cd "$(dirname "$0")/../.."
PORT="${PORT:-28095}"
CLIENTS="${CLIENTS:-16}"
SIZE="${SIZE:-47}"
SECONDS_EACH="${SECONDS:-20}"
RUNS="${RUNS:-3}"
NICES="${NICES:-5 10 0}"
OUT=bench-out/probe
mkdir -p "$OUT"
if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
    swift build -c release --product archive-service >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
fi
BIN="${BIN:-$(swift build -c release --show-bin-path)/archive-service}"
save="$OUT/league-$SIZE.bplist"
[[ -f "$save" ]] || python3 scripts/gen/gen_game_save.py --shape league --size-mb "$SIZE" --out "$save" >/dev/null
for run in $(seq "$RUNS"); do
    for nice in $NICES; do
        "$BIN" --host 127.0.0.1 --port "$PORT" --max-body-size 64M --worker-nice "$nice" --log-level warning >"$OUT/server.log" 2>&1 &
        pid=$!
        for _ in $(seq 100); do
            curl -fsS -o /dev/null "http://127.0.0.1:$PORT/healthz" 2>/dev/null && break
            sleep 0.1
        done
        printf 'run %s, --worker-nice %s: ' "$run" "$nice"
        timeout 900 python3 scripts/bench/probe_under_load.py "$PORT" "$save" --clients "$CLIENTS" --seconds "$SECONDS_EACH"
        kill -TERM "$pid"
        wait "$pid" || true
    done
done
