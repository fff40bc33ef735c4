#!/bin/bash
# Sourced by scripts/ci/rootfs-check.sh and scripts/ci/setup-check.sh: a bare Debian bookworm root
# (debootstrap --variant=minbase, as a fresh machine or debian:bookworm-slim has) at $root,
# made once and cached as .rootfs/bookworm-base.tar, restored bare for every use, with
# bookworm, bookworm-updates and bookworm-security from the mirror apt on this machine
# already uses, and /proc and /dev mounted. The caller sources scripts/lib/common.sh first
# (repo, log, die), sets root and fresh, calls bookworm_root_tools first (the checks for root,
# debootstrap and curl) and bookworm_root_unmount on exit.
# shellcheck disable=SC2154  # root and fresh are the caller's
# shellcheck source=scripts/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"

bookworm_root_tools() {
  [[ $EUID -eq 0 ]] || die "must run as root (debootstrap, chroot, mount)"
  need_hint="apt-get install -y debootstrap curl" need_commands debootstrap curl
}

# The mirror apt already uses (deb822 .sources or one-line sources.list), not security.
bookworm_root_prepare() {
  local mirror security m
  mirror="${MIRROR:-}"
  if [[ -z "${mirror}" ]]; then
    mirror="$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null \
      | awk '/^URIs:/ { for (i = 2; i <= NF; i++) print $i }' \
      | grep -E '/debian/?$' | head -n1 || true)"
  fi
  if [[ -z "${mirror}" ]]; then
    mirror="$(grep -hE '^deb ' /etc/apt/sources.list 2>/dev/null \
      | awk '{ print $2 }' | grep -E '/debian/?$' | head -n1 || true)"
  fi
  mirror="${mirror:-http://deb.debian.org/debian}"
  security="${SECURITY_MIRROR:-$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null \
    | awk '/^URIs:/ { for (i = 2; i <= NF; i++) print $i }' | grep -E '/debian-security/?$' | head -n1 || true)}"
  security="${security:-http://deb.debian.org/debian-security}"

  mkdir -p "${repo}/.rootfs"
  if [[ ${fresh} -eq 1 || ! -f "${repo}/.rootfs/bookworm-base.tar" ]]; then
    log "debootstrap --variant=minbase bookworm ${root} ${mirror}"
    bookworm_root_reset
    debootstrap --variant=minbase bookworm "${root}" "${mirror}" >"${repo}/.rootfs/debootstrap.log" 2>&1 \
      || { tail -n 30 "${repo}/.rootfs/debootstrap.log" >&2; die "debootstrap failed"; }
    # A fresh copy for each use: every replay must start from the bare root.
    tar -C "${root}" -cf "${repo}/.rootfs/bookworm-base.tar" .
  else
    log "reusing the debootstrapped root (restored bare from .rootfs/bookworm-base.tar)"
    bookworm_root_reset
    tar -C "${root}" -xf "${repo}/.rootfs/bookworm-base.tar"
  fi
  cp /etc/resolv.conf "${root}/etc/resolv.conf"
  # The suites debian:bookworm-slim has enabled (debootstrap only sets up bookworm itself).
  rm -f "${root}/etc/apt/sources.list"
  cat >"${root}/etc/apt/sources.list.d/debian.sources" <<SOURCES
Types: deb
URIs: ${mirror}
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: ${security}
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
  mount -t proc proc "${root}/proc"
  mount --bind /dev "${root}/dev"
}

# Unmounts everything mounted under the root (also what a caller bound in), deepest first.
bookworm_root_unmount() {
  local m
  [[ -d "${root}" ]] || return 0
  while read -r m; do
    umount -l "$m" 2>/dev/null || true
  done < <(awk -v r="${root}/" 'index($2, r) == 1 { print $2 }' /proc/self/mounts | sort -r)
  return 0
}

# Never delete through a bind mount left by an interrupted run (it would be the host's /dev).
bookworm_root_reset() {
  bookworm_root_unmount
  rm -rf --one-file-system "${root}"
  mkdir -p "${root}"
}
