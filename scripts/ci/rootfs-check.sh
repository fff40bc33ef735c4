#!/bin/bash
# Prove the Dockerfile's runtime stage works, without a Docker engine.
#
# 1. A bare bookworm root in .rootfs/bookworm (scripts/ci/bookworm-root.sh: debootstrap
#    --variant=minbase, cached; --fresh redoes it).
# 2. Replay the runtime stage of ./Dockerfile (everything after its last FROM) inside a
#    chroot: ARG, RUN (via /bin/sh -c, so the same apt-get install and useradd run),
#    COPY (--from=build /out/X takes the local release build of X), ENV, USER, ENTRYPOINT,
#    HEALTHCHECK. Nothing else is installed into the root.
# 3. Check every shared library of the binaries resolves inside the root (ldd).
# 4. Start the ENTRYPOINT in the chroot as the USER with only the ENV, GET /healthz from
#    outside (expect 200), run the HEALTHCHECK command inside (expect exit 0), and decode a
#    fixture with archive-tool inside the root.
# 5. Stop the server and unmount, also on failure.
#
# Needs root, debootstrap (apt-get install debootstrap) and curl. Takes 1-3 min the first
# time (mostly debootstrap), seconds afterwards. .ci/run runs it after the release build.
#
# Usage: scripts/ci/rootfs-check.sh [--bin-dir DIR] [--port N] [--fresh]
#   --bin-dir  where archive-service and archive-tool are, as a `swift build -c release
#              --static-swift-stdlib` makes them (default: that build, made first; SKIP_BUILD=1
#              takes the last one as it is)
set -euo pipefail

# shellcheck source=scripts/ci/bookworm-root.sh
source "$(dirname "${BASH_SOURCE[0]}")/bookworm-root.sh"
port=18080
fresh=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --bin-dir) bin_dir_option "${2:-}"; shift 2 ;;
    --port) port="$2"; shift 2 ;;
    --fresh) fresh=1; shift ;;
    *) echo "usage: $0 [--bin-dir DIR] [--port N] [--fresh]" >&2; exit 2 ;;
  esac
done

bookworm_root_tools
bins_prepare --static archive-service archive-tool

root="${repo}/.rootfs/bookworm"
at_exit bookworm_root_unmount
at_exit server_stop 5

# --- 1. minimal bookworm root ---------------------------------------------------------------
bookworm_root_prepare

# --- 2. replay the runtime stage --------------------------------------------------------------
# Instructions after the last FROM, continuation lines joined, comments dropped.
stage="$(awk '/^FROM /{ buf = "" ; next } { buf = buf $0 "\n" } END { printf "%s", buf }' "${repo}/Dockerfile" \
  | grep -v '^[[:space:]]*#' | sed -e ':a' -e '/\\$/{N;s/\\\n//;ba' -e '}')"

declare -A args=()
env_vars=()
user="root"
entrypoint=()
healthcheck=()
# Exec-form JSON array -> one NUL-terminated word each (read with readarray -d '').
json_argv() { python3 -c 'import json,sys; sys.stdout.write("".join(w + "\0" for w in json.loads(sys.argv[1])))' "$1"; }

while IFS= read -r line; do
  [[ -z "${line//[[:space:]]/}" ]] && continue
  instr="${line%% *}"
  rest="${line#* }"
  case "${instr}" in
    ARG)
      name="${rest%%=*}"; value="${rest#*=}"; value="${value#\"}"; value="${value%\"}"
      args["${name}"]="${value}" ;;
    RUN)
      log "RUN ${rest}"
      arg_env=()
      for k in "${!args[@]}"; do arg_env+=("${k}=${args[$k]}"); done
      chroot "${root}" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        DEBIAN_FRONTEND=noninteractive "${arg_env[@]}" /bin/sh -c "${rest}" >&2 \
        || die "RUN failed: ${rest}" ;;
    COPY)
      read -r -a parts <<<"${rest}"
      dest="${parts[-1]}"
      unset 'parts[-1]'
      for src in "${parts[@]}"; do
        case "${src}" in
          --from=*) continue ;;
          /out/*) name="${src#/out/}"
            if [[ -x "${bin_dir}/${name}" ]]; then from="${bin_dir}/${name}"
            else log "COPY: ${bin_dir}/${name} not built, skipped"; continue; fi ;;
          *) from="${repo}/${src}" ;;
        esac
        if [[ "${dest}" == */ ]]; then install -D -m 0755 "${from}" "${root}${dest}$(basename "${from}")"
        else install -D -m 0755 "${from}" "${root}${dest}"; fi
        log "COPY ${from} -> ${dest}"
      done ;;
    ENV)
      read -r -a kvs <<<"${rest}"
      env_vars+=("${kvs[@]}") ;;
    USER) user="${rest}" ;;
    ENTRYPOINT) readarray -d '' entrypoint < <(json_argv "${rest}") ;;
    HEALTHCHECK) readarray -d '' healthcheck < <(json_argv "${rest#*CMD }") ;;
    EXPOSE|STOPSIGNAL|WORKDIR|LABEL) ;;
    *) die "rootfs-check does not know Dockerfile instruction ${instr}: extend it" ;;
  esac
done <<<"${stage}"
[[ ${#entrypoint[@]} -gt 0 ]] || die "no ENTRYPOINT in the runtime stage"

# --- 3. shared libraries -----------------------------------------------------------------------
for b in "${root}"/usr/local/bin/archive-*; do
  missing="$(chroot "${root}" ldd "/usr/local/bin/$(basename "$b")" | grep 'not found' || true)"
  [[ -z "${missing}" ]] || die "$(basename "$b") has unresolved libraries in the runtime root: ${missing}"
done
log "all shared libraries resolve inside the root"

# --- 4. run it ---------------------------------------------------------------------------------
run_env=(/usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin "${env_vars[@]}" "PORT=${port}")
log "starting ${entrypoint[*]} as ${user} on port ${port}"
# chroot execs env, which execs the server, so the PID stopped is the server's.
server_start "${port}" "${repo}/.rootfs/server.log" chroot --userspec="${user}" "${root}" "${run_env[@]}" "${entrypoint[@]}"
log "GET /healthz from outside the root: 200 $(curl -s "http://127.0.0.1:${port}/healthz")"

if [[ ${#healthcheck[@]} -gt 0 ]]; then
  chroot --userspec="${user}" "${root}" "${run_env[@]}" "${healthcheck[@]}" \
    || die "HEALTHCHECK command failed inside the root"
  log "HEALTHCHECK (${healthcheck[*]}) inside the root: exit 0"
  # The check follows --port on the server's command line over PORT (as `docker run IMAGE
  # --port N` needs). PID 1 here is the host's, so a command line is given as a file.
  printf '%s\0' /usr/local/bin/archive-service --port "${port}" >"${root}/tmp/cmdline"
  cmdline_env=("${run_env[@]}" PORT=1 HEALTHCHECK_CMDLINE=/tmp/cmdline)
  chroot --userspec="${user}" "${root}" "${cmdline_env[@]}" "${healthcheck[@]}" \
    || die "HEALTHCHECK did not follow --port ${port} on the server's command line"
  printf '%s\0' /usr/local/bin/archive-service --port 1 >"${root}/tmp/cmdline"
  if chroot --userspec="${user}" "${root}" "${cmdline_env[@]}" "${healthcheck[@]}" 2>/dev/null; then
    die "HEALTHCHECK passed for --port 1, where nothing listens"
  fi
  log "HEALTHCHECK follows --port on the server's command line over PORT"
fi

if [[ -x "${root}/usr/local/bin/archive-tool" ]]; then
  fixture="$(find "${repo}/Tests" \
    -name goios_nsuuid.bin -print -quit 2>/dev/null || true)"
  if [[ -n "${fixture}" ]]; then
    install -m 0644 "${fixture}" "${root}/tmp/nsuuid.bin"
    out="$(chroot --userspec="${user}" "${root}" /usr/local/bin/archive-tool decode /tmp/nsuuid.bin)" \
      || die "archive-tool decode failed inside the root"
    log "archive-tool decode inside the root: ${out}"
  fi
fi

server_stop 5 || die "the server exited $? after SIGTERM"
log "OK: the runtime stage serves /healthz with only: ${args[RUNTIME_PACKAGES]:-?}"
