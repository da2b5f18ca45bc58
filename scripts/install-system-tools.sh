#!/usr/bin/env bash
# Installs the system tools supercoder needs: gcc and hyperfine (required),
# clang and valgrind (optional: more candidates, workload profiles).
# As root on Debian/Ubuntu it installs them with apt-get; elsewhere it says how.
set -euo pipefail
need=(gcc hyperfine)
want=(clang valgrind)
missing=()
for t in "${need[@]}" "${want[@]}"; do command -v "$t" >/dev/null 2>&1 || missing+=("$t"); done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing: ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null || true
    apt-get install -y -qq "${missing[@]}" >/dev/null
    exit 0
fi
for t in "${need[@]}"; do
    if ! command -v "$t" >/dev/null 2>&1; then
        echo "error: '$t' is required but not installed." >&2
        echo "  Debian/Ubuntu: sudo apt-get install ${missing[*]}" >&2
        echo "  Fedora:        sudo dnf install ${missing[*]}" >&2
        echo "  macOS is not supported (x86-64 ELF Linux only)." >&2
        exit 3
    fi
done
echo "note: optional tools not installed: ${missing[*]} (sudo apt-get install ${missing[*]})" >&2
