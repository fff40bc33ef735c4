#!/usr/bin/env bash
# /healthz latency under CLIENTS concurrent decodes of a SIZE MB league save on this machine, for
# each worker niceness in NICES (the default, 5, against 10 and 0: the loops' priority over the workers
# side by side), RUNS times each, in turn. Starts a release build of archive-service with the
# defaults but --worker-nice (2 workers and 2 loops on 2 cores) and --max-body-size 64M.
#
# Usage: scripts/bench/probe_under_load.sh [--bin-dir DIR]
#   Environment: PORT (28095), CLIENTS (16), SIZE (47), PROBE_SECONDS (20; bash keeps its own
#   SECONDS), RUNS (3), NICES ("5 10 0"), SKIP_BUILD=1 (no build: the last release build), BIN
#   (the archive-service to run).
set -euo pipefail
# shellcheck source=scripts/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
bin_dir_arguments "$@"
cd "${repo}"
PORT="${PORT:-28095}"
CLIENTS="${CLIENTS:-16}"
SIZE="${SIZE:-47}"
SECONDS_EACH="${PROBE_SECONDS:-20}"
RUNS="${RUNS:-3}"
NICES="${NICES:-5 10 0}"
OUT=bench-out/probe
mkdir -p "$OUT"
service_prepare
at_exit server_stop
save="$OUT/league-$SIZE.bplist"
[[ -f "$save" ]] || python3 scripts/gen/gen_game_save.py --shape league --size-mb "$SIZE" --out "$save" >/dev/null
for run in $(seq "$RUNS"); do
    for nice in $NICES; do
        server_start "$PORT" "$OUT/server.log" "$service" --host 127.0.0.1 --port "$PORT" --max-body-size 64M \
            --worker-nice "$nice" --log-level warning
        printf 'run %s, --worker-nice %s: ' "$run" "$nice"
        timeout 900 python3 scripts/bench/probe_under_load.py "$PORT" "$save" --clients "$CLIENTS" --seconds "$SECONDS_EACH"
        server_stop 30 || true
    done
done
