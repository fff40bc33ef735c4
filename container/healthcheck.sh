#!/bin/bash
# Container health check: GET /healthz from archive-service, exit 0 only on HTTP 200.
# Uses bash's /dev/tcp so the runtime image needs no curl.
#
# Where to connect is found as the server finds it: the last --port N / --port=N and
# --host A / --host=A on its command line, else the PORT and HOST environment variables (the
# container's, which this check shares), else port 8080 on every address. The command line is
# /proc/1/cmdline: the Dockerfile's exec-form ENTRYPOINT makes the server PID 1, so
# `docker run IMAGE --port 9000` is checked on 9000. Only the words after one named
# archive-service count (behind `docker run --init` the server is an argument of the init; a
# PID 1 that is not the server is ignored). A wildcard host (0.0.0.0, ::) is checked on the
# loopback address, any other host on that address.
# HEALTHCHECK_CMDLINE names another command-line file (NUL-separated words), for tests.
set -u

host="${HOST:-}"
port="${PORT:-8080}"

cmdline="${HEALTHCHECK_CMDLINE:-/proc/1/cmdline}"
argv=()
if [[ -r "${cmdline}" ]]; then
  mapfile -d '' -t argv <"${cmdline}" || argv=()
fi
server=0
i=0
while ((i < ${#argv[@]})); do
  word="${argv[i]}"
  i=$((i + 1))
  if ((!server)); then
    [[ "${word##*/}" == archive-service ]] && server=1
    continue
  fi
  case "${word}" in
    --) break ;;
    --port=*) port="${word#--port=}" ;;
    --host=*) host="${word#--host=}" ;;
    --port | --host)
      ((i < ${#argv[@]})) || break
      if [[ "${word}" == --port ]]; then port="${argv[i]}"; else host="${argv[i]}"; fi
      i=$((i + 1)) ;;
  esac
done

if [[ ! "${port}" =~ ^[0-9]{1,5}$ ]] || ((10#${port} < 1 || 10#${port} > 65535)); then
  if [[ "${port}" =~ ^0+$ ]]; then
    echo "healthcheck: port 0 (a free port picked at start) cannot be checked"
  else
    echo "healthcheck: '${port}' is not a port"
  fi
  exit 1
fi
port=$((10#${port}))

host="${host#\[}"
host="${host%\]}"
case "${host}" in
  "" | 0.0.0.0) addresses=(127.0.0.1) ;;
  # A socket on :: also takes IPv4 unless the host sets bindv6only.
  :: | 0:0:0:0:0:0:0:0) addresses=(127.0.0.1 ::1) ;;
  *) addresses=("${host}") ;;
esac

connected=""
for address in "${addresses[@]}"; do
  if exec 3<>"/dev/tcp/${address}/${port}"; then
    connected="${address}"
    break
  fi
done 2>/dev/null
if [[ -z "${connected}" ]]; then
  echo "healthcheck: nothing answers on ${addresses[*]} port ${port}"
  exit 1
fi

printf 'GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n' >&3
if ! IFS=' ' read -r -t 2 version status _ <&3; then
  echo "healthcheck: no reply from ${connected} port ${port}"
  exit 1
fi
status="${status%$'\r'}"
if [[ "${version}" != HTTP/1.* || "${status}" != 200 ]]; then
  echo "healthcheck: GET /healthz on ${connected} port ${port} answered ${status:-nothing}"
  exit 1
fi
