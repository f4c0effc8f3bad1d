#!/usr/bin/env bash
# Refuses to build when the fio binary and the fio source differ in version: the engine is
# compiled against fio's internal structures, which change between versions.
set -euo pipefail
fio_bin=$1 src=$2
command -v "$fio_bin" >/dev/null || { echo "fio not found on PATH: run 'make setup' (installs fio)" >&2; exit 1; }
bin_ver=$("$fio_bin" --version | head -n1)
src_ver=$(grep '^DEF_VER=' "$src/FIO-VERSION-GEN" | cut -d= -f2)
if [ "$bin_ver" != "$src_ver" ]; then
	echo "fio version mismatch: binary '$fio_bin' is $bin_ver but FIO_SRC=$src is $src_ver; use the source of the same version" >&2
	exit 1
fi
