#!/usr/bin/env bash
# Installs what HybridKit needs on Debian 12 (bookworm): WebKitGTK and its headers, a virtual X server, and
# TypeScript's tsc (for the type-declaration tests).
# The Swift toolchain (6.x) is expected on PATH. Safe to run again; needs root (or sudo).
set -euo pipefail

# node-typescript: tsc, which the tests use to type-check Sources/HybridKit/Bridge/Types/hybrid.d.ts.
# nginx: the static server the release-channel tests serve `hybrid publish` output with (started as the test user).
packages=(libwebkit2gtk-4.1-dev xvfb xauth pkg-config unzip node-typescript nginx)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done

if ((${#missing[@]})); then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
fi

command -v swift >/dev/null || { echo "swift is not on PATH: install a Swift 6 toolchain" >&2; exit 1; }
