#!/usr/bin/env bash
# Installs what scripts/toolchain.txt lists and is missing. Idempotent: a
# second run with everything present only checks versions and returns.
set -euo pipefail
trap 'echo "deps: failed at scripts/deps.sh:$LINENO: $BASH_COMMAND" >&2' ERR
root=$(cd "$(dirname "$0")/.." && pwd)
list="$root/scripts/toolchain.txt"
venv="$root/.venv"

die() { echo "deps: $*" >&2; exit 1; }

mapfile -t apt_rows < <(awk '$1=="apt"{print $2" "$3}' "$list")
mapfile -t pip_rows < <(awk '$1=="pip"{print $2"=="$3}' "$list")

# Upstream version of an installed Debian package ("1:14.0-55.7" -> "14.0-55.7"
# with the epoch gone); empty when absent.
installed_version() {
  { dpkg-query -W -f='${db:Status-Abbrev} ${Version}\n' "$1" 2>/dev/null || true; } |
    awk '$1=="ii"{v=$2; sub(/^[0-9]+:/,"",v); print v}'
}

missing=()
for row in "${apt_rows[@]}"; do
  read -r pkg want <<<"$row"
  have=$(installed_version "$pkg")
  if [[ -z "$have" ]]; then
    missing+=("$pkg")
  elif [[ "$have" != "$want"* && "$have" != *"really$want"* ]]; then
    die "$pkg is at $have but scripts/toolchain.txt pins $want; install $pkg $want or update the pin (and README) on purpose"
  fi
done

if ((${#missing[@]})); then
  echo "deps: installing Debian packages: ${missing[*]}"
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || die "need root (or sudo) to apt-get install: ${missing[*]}"
    SUDO=sudo
  else
    SUDO=
  fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  for pkg in "${missing[@]}"; do
    want=$(awk -v p="$pkg" '$1=="apt" && $2==p {print $3}' "$list")
    have=$(installed_version "$pkg")
    [[ "$have" == "$want"* || "$have" == *"really$want"* ]] ||
      die "$pkg installed at '$have' but scripts/toolchain.txt pins $want"
  done
fi

# Python virtual environment: rebuilt only when the pinned list changes.
stamp="$venv/.syncfab-toolchain"
want_pins=$(printf '%s\n' "${pip_rows[@]}")
if [[ ! -x "$venv/bin/python" || ! -f "$stamp" || "$(cat "$stamp")" != "$want_pins" ]]; then
  py=$(command -v python3 || true)
  [[ -n "$py" ]] || die "python3 not found; install Debian's python3 and python3-venv"
  echo "deps: creating Python environment in .venv"
  rm -rf "$venv"
  "$py" -m venv "$venv" || die "python3 -m venv failed; 'apt-get install python3-venv' provides it"
  "$venv/bin/pip" install -q --disable-pip-version-check --no-deps "${pip_rows[@]}" ||
    die "pip could not install the pinned Python packages (see scripts/toolchain.txt)"
  "$venv/bin/pip" check -q >/dev/null || die "pinned Python packages conflict: run .venv/bin/pip check"
  printf '%s' "$want_pins" >"$stamp"
fi

# A verilator other than the pinned one first on PATH would silently be used
# by cocotb; refuse it.
vv=$(verilator --version 2>/dev/null | awk '{print $2}')
want_v=$(awk '$1=="apt" && $2=="verilator"{print $3}' "$list")
[[ "$vv" == "$want_v" ]] || die "verilator on PATH reports '$vv', pinned is $want_v ($(command -v verilator))"
echo "deps: toolchain complete (verilator $vv, cocotb $("$venv/bin/python" -c 'import cocotb;print(cocotb.__version__)'))"
