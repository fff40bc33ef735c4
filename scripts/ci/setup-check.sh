#!/bin/bash
# Proves README.md's set-up command on a fresh machine: a bare Debian bookworm root
# (scripts/ci/bookworm-root.sh) with nothing but the Swift toolchain mounted at /opt/swift and on
# PATH, a fresh clone of this repository's HEAD, and the command taken verbatim from the
# README (the first sh block under "Set up and run"), run as root inside the root. It must
# install what it needs, build, and start the server: GET /healthz from outside must answer
# 200 within the time allowed, and a fixture must decode.
#
# Swift packages: a machine with internet fetches them from GitHub. Where git's system
# config rewrites GitHub URLs to a local folder (no internet), that config and folder are
# bound into the root, so the packages resolve as they do here; nothing else is.
#
# Needs root, debootstrap and curl. Takes 3-8 min (apt, then a release build from scratch).
#
# Usage: scripts/ci/setup-check.sh [--port N] [--fresh] [--swift DIR]   (DIR: default /opt/swift)
set -euo pipefail

# shellcheck source=scripts/ci/bookworm-root.sh
source "$(dirname "${BASH_SOURCE[0]}")/bookworm-root.sh"
port=18090
fresh=0
swift_dir=/opt/swift
while [[ $# -gt 0 ]]; do
  case "$1" in
    --port) port="$2"; shift 2 ;;
    --fresh) fresh=1; shift ;;
    --swift) swift_dir="$2"; shift 2 ;;
    *) echo "usage: $0 [--port N] [--fresh] [--swift DIR]" >&2; exit 2 ;;
  esac
done

bookworm_root_tools
[[ -x "${swift_dir}/usr/bin/swift" ]] || die "no Swift toolchain at ${swift_dir}"

root="${repo}/.rootfs/setup"
setup_pid=""
# Every process whose root is the chroot (the command's shell, the build, the server).
stop_root_processes() {
  local signal=$1 proc
  for proc in /proc/[0-9]*; do
    [[ "$(readlink "${proc}/root" 2>/dev/null)" == "${root}" ]] && kill "-${signal}" "${proc#/proc/}" 2>/dev/null
  done
  return 0
}
stop_setup() {
  [[ -n "${setup_pid}" ]] || return 0
  stop_root_processes TERM
  sleep 1
  stop_root_processes KILL
  wait "${setup_pid}" 2>/dev/null || true
}
at_exit bookworm_root_unmount
at_exit stop_setup

# The command, verbatim: the first ```sh block after the "Set up and run" heading.
command="$(awk '/^## Set up and run/ { section = 1; next }
                section && /^```sh/ { inside = 1; next }
                inside && /^```/ { exit }
                inside { print }' "${repo}/README.md")"
[[ -n "${command}" ]] || die "no sh block under \"## Set up and run\" in README.md"
log "README's command: ${command}"

bookworm_root_prepare
# The root has the toolchain and nothing else (the bare root from bookworm-root.sh).
mkdir -p "${root}/opt/swift"
mount --bind "${swift_dir}" "${root}/opt/swift"
mount -o remount,bind,ro "${root}/opt/swift"
# Where git rewrites GitHub to a local folder, bind that folder and copy the rewrite.
if git config --system --get-regexp '^url\.' >/dev/null 2>&1; then
  while read -r key _; do
    folder="${key#url.}"
    folder="${folder%.insteadof}"
    if [[ "${folder}" == /* && -d "${folder}" ]] && ! mountpoint -q "${root}${folder}"; then
      mkdir -p "${root}${folder}"
      mount --bind "${folder}" "${root}${folder}"
      mount -o remount,bind,ro "${root}${folder}"
    fi
  done < <(git config --system --get-regexp '^url\.')
  git config --system --list --show-origin | awk -F'\t' 'NR == 1 { sub(/^file:/, "", $1); print $1 }' \
    | xargs -r -I{} cp {} "${root}/etc/gitconfig"
fi
# A fresh clone of HEAD, as a newcomer would have it.
git clone -q "${repo}" "${root}/src"
log "fresh clone of $(git -C "${repo}" rev-parse --short HEAD) in the root at /src"

log "running the command inside the root (PORT=${port})"
chroot "${root}" /usr/bin/env -i HOME=/root TERM=dumb PORT="${port}" \
  PATH=/opt/swift/usr/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  /bin/sh -c "cd /src && ${command}" >"${repo}/.rootfs/setup.log" 2>&1 &
setup_pid=$!

answered=0
wait_healthz "${port}" "${SETUP_SECONDS:-1500}" "${setup_pid}" || answered=$?
if ((answered != 0)); then
  tail -n 40 "${repo}/.rootfs/setup.log" >&2
  ((answered == 1)) && die "the command stopped before the server answered"
  die "no 200 from /healthz within ${SETUP_SECONDS:-1500}s"
fi
log "GET /healthz: 200 after ${SECONDS}s"
out="$(curl -s --data-binary @"${repo}/Tests/Fixtures/apple/goios_nsuuid.bin" "http://127.0.0.1:${port}/v1/decode")"
# shellcheck disable=SC2016  # the $ is JSON text
[[ "${out}" == '{"$uuid":"54CD5574-E957-4499-8A09-DAB688C0B586"}' ]] || die "decode answered: ${out}"
log "OK: README's set-up command works on a bare bookworm root; decode answered ${out}"
