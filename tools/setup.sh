#!/usr/bin/env bash
# Installs what the workbench needs on a fresh Debian 12 machine with the Swift toolchain, then builds.
# Usage: tools/setup.sh [extra swift build arguments]
set -euo pipefail
cd "$(dirname "$0")/.."

command -v swift >/dev/null || { echo "setup: the Swift toolchain (swift) is not on PATH" >&2; exit 1; }

# Debian packages: the list in tools/apt-packages.txt, installed only when missing.
missing=()
while IFS= read -r line || [ -n "$line" ]; do
  pkg="${line%%#*}"; pkg="$(echo "$pkg" | tr -d '[:space:]')"
  [ -z "$pkg" ] && continue
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done < tools/apt-packages.txt
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# PyJWT (from PyPI) for the IMS interop tests, in a venv under the repository; skipped when already there.
if ! .venv-interop/bin/python -c "import jwt, cryptography" 2>/dev/null; then
  echo "setup: installing PyJWT into .venv-interop"
  rm -rf .venv-interop
  python3 -m venv .venv-interop
  .venv-interop/bin/pip install --quiet --disable-pip-version-check "PyJWT[crypto]>=2.8,<3"
fi

swift build "$@"
