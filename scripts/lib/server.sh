# shellcheck shell=bash
# Running archive-service from a script; sourced by common.sh (and by .ci/run). The script that
# sources it defines die (common.sh does) and may set script_name (the prefix of its messages).
#   free_port                       a free TCP port on 127.0.0.1, printed
#   wait_healthz PORT SECONDS [PID] wait until GET http://127.0.0.1:PORT/healthz answers 200:
#                                   returns 0 then, 1 if PID exited first, 2 after SECONDS
#   server_start PORT LOG CMD ARG…  run CMD ARG… (a server listening on PORT) in the background,
#                                   its output in LOG; sets server_pid and waits for /healthz
#                                   (SERVER_START_SECONDS, default 30): on failure dies with
#                                   LOG's tail. CMD must exec the server, so that server_pid is
#                                   the server's.
#   server_stop [SECONDS]           SIGTERM, up to SECONDS (default 10) for it to exit, then
#                                   SIGKILL; returns the server's exit status (server_killed=1
#                                   when it had to be killed)
# Register `at_exit server_stop` once a server may run: a failing script stops it too.

# shellcheck disable=SC2034  # server_killed is for the callers
server_pid=""
server_killed=0

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

wait_healthz() {
  local port=$1 seconds=$2 pid=${3:-} deadline
  deadline=$((SECONDS + seconds))
  while ((SECONDS < deadline)); do
    if [[ -n "${pid}" ]] && ! kill -0 "${pid}" 2>/dev/null; then return 1; fi
    curl -fsS --max-time 2 -o /dev/null "http://127.0.0.1:${port}/healthz" 2>/dev/null && return 0
    sleep 0.1
  done
  return 2
}

server_start() {
  local port=$1 log_file=$2 status=0
  shift 2
  "$@" >"${log_file}" 2>&1 &
  server_pid=$!
  server_killed=0
  wait_healthz "${port}" "${SERVER_START_SECONDS:-30}" "${server_pid}" || status=$?
  ((status == 0)) && return 0
  tail -n 30 "${log_file}" >&2
  if ((status == 1)); then
    server_pid=""
    die "$1 exited during start-up (log: ${log_file})"
  fi
  die "$1 did not answer GET /healthz on port ${port} within ${SERVER_START_SECONDS:-30}s (log: ${log_file})"
}

server_stop() {
  local seconds=${1:-10} pid=${server_pid} status=0 deadline
  [[ -n "${pid}" ]] || return 0
  server_pid=""
  kill -TERM "${pid}" 2>/dev/null || true
  deadline=$((SECONDS + seconds))
  while kill -0 "${pid}" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.1; done
  if kill -0 "${pid}" 2>/dev/null; then
    echo "${script_name:-server}: server ${pid} still running ${seconds}s after SIGTERM: SIGKILL" >&2
    kill -KILL "${pid}" 2>/dev/null || true
    server_killed=1
  fi
  wait "${pid}" 2>/dev/null || status=$?
  return "${status}"
}
