#!/usr/bin/env bash
# Installs clforge's build and test dependencies from Debian 12 packages (tools/deps.txt);
# with --build only those above its "# tests:" line (the library and the command line).
# Skips apt when everything is already installed; needs root (or sudo) otherwise.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
list=$(cat "$here/deps.txt")
if [ "${1:-}" = --build ]; then
  list=$(sed '/^# tests:/,$d' "$here/deps.txt")
fi
mapfile -t pkgs < <(grep -v '^#' <<<"$list" | sed '/^$/d')
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "dependencies: all ${#pkgs[@]} Debian packages present"
  exit 0
fi
echo "dependencies: installing ${missing[*]}"
sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
