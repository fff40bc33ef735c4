#!/usr/bin/env bash
# Attacks a release build of archive-service on 127.0.0.1 with hostile and heavy clients
# (scripts/attack/attack.py) and prints, per attack, the statuses seen, peak RSS, /healthz latency
# and survival; the last row drains it with SIGTERM while bodies arrive. The server runs with the Kubernetes manifest's flags (2 workers, queue 8,
# 32M bodies; a 5 s drain timeout, so the last row ends soon), a 768 MiB memory budget (the default under a 1 GiB container limit) and 1,024
# descriptors, a common container limit. Stops by itself: about 3 minutes, or 1 with --short.
# Typedstream rows: declared counts, long class chains (encode; decode and summary), and (not
# with --short) two encodes of a million-key dictionary at once.
#
# Usage: scripts/attack/attack.sh [--short]      Environment: PORT (default 28090), SKIP_BUILD=1,
#   BIN (the server to attack; default: the release build's archive-service).
set -euo pipefail
cd "$(dirname "$0")/../.."
PORT="${PORT:-28090}"
OUT=bench-out/attack
mkdir -p "$OUT"
short=${1:-}
if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
    swift build -c release --product archive-service >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
fi
BIN="${BIN:-$(swift build -c release --show-bin-path)/archive-service}"
size=30
[[ "$short" == --short ]] && size=4
[[ -f "$OUT/save-$size.bplist" ]] || python3 scripts/gen/gen_game_save.py --size-mb "$size" --out "$OUT/save-$size.bplist" >/dev/null
cp "$OUT/save-$size.bplist" "$OUT/save.bplist"

(ulimit -n 1024; exec "$BIN" --host 127.0.0.1 --port "$PORT" --workers 2 --queue-limit 8 --max-body-size 32M \
    --timeout 30 --memory-budget 768M --drain-timeout 5 --log-level warning) >"$OUT/server.log" 2>&1 &
pid=$!
trap 'kill -9 $pid 2>/dev/null || true' EXIT
for _ in $(seq 100); do
    python3 -c "import socket; socket.create_connection(('127.0.0.1', $PORT), timeout=1)" 2>/dev/null && break
    sleep 0.1
done
status=0
# The client opens more connections than the server's 1,024 descriptors (the slow-body row).
(ulimit -n 4096 2>/dev/null || true; exec timeout 600 python3 scripts/attack/attack.py "$PORT" "$pid" "$OUT" ${short:+"$short"}) || status=$?
# attack.py's last row sends SIGTERM itself; the drain must end in a clean exit.
kill -TERM "$pid" 2>/dev/null || true
wait "$pid" || status=1
exit "$status"
