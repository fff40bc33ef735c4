#!/usr/bin/env bash
# Attacks a release build of archive-service on 127.0.0.1 with hostile and heavy clients
# (scripts/attack/attack.py) and prints, per attack, the statuses seen, peak RSS, /healthz latency
# and survival; the last row drains it with SIGTERM while bodies arrive. The server runs with the Kubernetes manifest's flags (2 workers, queue 8,
# 32M bodies; a 5 s drain timeout, so the last row ends soon), a 768 MiB memory budget (the default under a 1 GiB container limit) and 1,024
# descriptors, a common container limit. Stops by itself: about 3 minutes, or 1 with --short.
# Typedstream rows: declared counts, long class chains (encode; decode and summary), and (not
# with --short) two encodes of a million-key dictionary at once.
#
# Usage: scripts/attack/attack.sh [--short] [--bin-dir DIR]
#   Environment: PORT (default 28090); SKIP_BUILD=1 (no build: the last release build);
#   BIN (the server to attack; default: the release build's archive-service).
set -euo pipefail
# shellcheck source=scripts/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
short=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        --short) short=--short; shift ;;
        --bin-dir) bin_dir_option "${2:-}"; shift 2 ;;
        *) echo "usage: $0 [--short] [--bin-dir DIR]" >&2; exit 2 ;;
    esac
done
cd "${repo}"
PORT="${PORT:-28090}"
OUT=bench-out/attack
mkdir -p "$OUT"
service_prepare
size=30
[[ -n "$short" ]] && size=4
[[ -f "$OUT/save-$size.bplist" ]] || python3 scripts/gen/gen_game_save.py --size-mb "$size" --out "$OUT/save-$size.bplist" >/dev/null
cp "$OUT/save-$size.bplist" "$OUT/save.bplist"

at_exit server_stop 5
# bash execs the server: server_pid is the server's, whose RSS attack.py follows.
# shellcheck disable=SC2016  # $@ is the inner shell's
server_start "$PORT" "$OUT/server.log" bash -c 'ulimit -n 1024; exec "$@"' server "$service" \
    --host 127.0.0.1 --port "$PORT" --workers 2 --queue-limit 8 --max-body-size 32M \
    --timeout 30 --memory-budget 768M --drain-timeout 5 --log-level warning
status=0
# The client opens more connections than the server's 1,024 descriptors (the slow-body row).
(ulimit -n 4096 2>/dev/null || true; exec timeout 600 python3 scripts/attack/attack.py "$PORT" "$server_pid" "$OUT" ${short:+"$short"}) || status=$?
# attack.py's last row sends SIGTERM itself; the drain must end in a clean exit.
server_stop 30 || { log "the server exited $? after SIGTERM (expected 0)"; status=1; }
exit "$status"
