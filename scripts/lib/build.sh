# shellcheck shell=bash
# Where a script finds this package's binaries; sourced by common.sh. One convention for every
# script:
#   --bin-dir DIR (or BIN_DIR=DIR)  the binaries in DIR, used as they are: nothing is built
#   SKIP_BUILD=1                    nothing is built: the binaries of the last build of the
#                                   configuration the script asks for
#   otherwise                       `swift build` of the products the script needs, first
# A script sets bin_dir from its --bin-dir option (bin_dir_option does) and then calls
# bins_prepare with the products it needs; afterwards "${bin_dir}/PRODUCT" is each of them.
# Scripts that run archive-service also take BIN, one archive-service binary (service_prepare).
# shellcheck disable=SC2154  # repo and script_name are common.sh's

bin_dir="${BIN_DIR:-}"

# bin_dir_option DIR: what a script's --bin-dir DIR sets.
bin_dir_option() {
  [[ -n "${1:-}" ]] || die "--bin-dir needs a directory"
  bin_dir="$(absolute "$1")"
}

# bin_dir_arguments "$@": the command line of a script whose only option is --bin-dir DIR;
# anything else prints the usage and exits 2.
bin_dir_arguments() {
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --bin-dir) bin_dir_option "${2:-}"; shift 2 ;;
      *) echo "usage: $0 [--bin-dir DIR]" >&2; exit 2 ;;
    esac
  done
}

# bins_prepare [-c debug|release] [--static] PRODUCT…: builds the products unless the binaries
# are given (above), sets bin_dir (absolute) and checks that every product is there.
# --static: the Swift runtime linked in statically, as the container's build does.
bins_prepare() {
  local config=release product
  local -a static=()
  while [[ $# -gt 0 ]]; do
    case "$1" in
      -c) config="$2"; shift 2 ;;
      --static) static=(--static-swift-stdlib); shift ;;
      *) break ;;
    esac
  done
  local shown="-c ${config}${static[*]:+ ${static[*]}}"
  if [[ -n "${bin_dir}" ]]; then
    bin_dir="$(absolute "${bin_dir}")"
  else
    if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
      mkdir -p "${repo}/.build"
      local build_log="${repo}/.build/${script_name}-build.log"
      : >"${build_log}"
      for product in "$@"; do
        log "swift build ${shown} --product ${product} (log: ${build_log})"
        (cd "${repo}" && swift build -c "${config}" "${static[@]}" --product "${product}") >>"${build_log}" 2>&1 \
          || { tail -n 30 "${build_log}" >&2; die "swift build of ${product} failed"; }
      done
    fi
    bin_dir="$(cd "${repo}" && swift build -c "${config}" "${static[@]}" --show-bin-path)"
  fi
  for product in "$@"; do
    [[ -x "${bin_dir}/${product}" ]] \
      || die "${bin_dir}/${product} is not built (swift build ${shown} --product ${product}; or --bin-dir DIR)"
  done
}

# service_prepare: sets `service` to the archive-service to run: BIN when set (nothing built),
# else the release build's (bins_prepare).
service_prepare() {
  if [[ -n "${BIN:-}" ]]; then
    service="$(absolute "${BIN}")"
    [[ -x "${service}" ]] || die "BIN=${BIN} is not an executable"
  else
    bins_prepare archive-service
    service="${bin_dir}/archive-service"
  fi
}
