#!/usr/bin/env bash
# Idempotent set-up: installs the build/test dependencies with apt-get when missing and fetches
# the fio source of exactly the installed fio's version into build/fio-src (unless FIO_SRC is set).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
pkgs=(fio liburing-dev libaio-dev libsqlite3-dev sqlite3 libcmocka-dev python3-matplotlib
      pkg-config dpkg-dev util-linux libinih-dev nettle-dev python3-scipy python3-jinja2
      libfuse3-dev fuse3)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
srcfile=/etc/apt/sources.list.d/schedengine-src.sources
need_update=0
if [ -z "${FIO_SRC:-}" ] && [ ! -f "$srcfile" ]; then
	# deb-src for bookworm, in a file of our own, so `apt-get source fio` works.
	$SUDO tee "$srcfile" >/dev/null <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
	need_update=1
fi
if [ ${#missing[@]} -gt 0 ] || [ $need_update -eq 1 ]; then
	echo "setup: apt-get update" >&2
	$SUDO apt-get update -qq >&2
fi
if [ ${#missing[@]} -gt 0 ]; then
	echo "setup: installing ${missing[*]}" >&2
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

fio_version=$(fio --version | sed 's/^fio-//')
if [ -n "${FIO_SRC:-}" ]; then
	[ -f "$FIO_SRC/ioengines.h" ] || { echo "setup: FIO_SRC=$FIO_SRC has no ioengines.h" >&2; exit 1; }
	exit 0
fi
dest="$top/build/fio-src"
if [ -f "$dest/.version" ] && [ "$(cat "$dest/.version")" = "$fio_version" ]; then
	exit 0
fi
echo "setup: fetching fio $fio_version source with apt-get source" >&2
rm -rf "$dest" "$top/build/fio-apt"
mkdir -p "$top/build/fio-apt"
pkgver=$(dpkg-query -W -f='${Version}' fio)
( cd "$top/build/fio-apt" && apt-get source -qq --download-only "fio=$pkgver" >&2 && \
  dpkg-source -x --skip-patches ./*.dsc src >/dev/null 2>&1 || dpkg-source -x ./*.dsc src >&2 )
mv "$top/build/fio-apt/src" "$dest"
rm -rf "$top/build/fio-apt"
echo "$fio_version" > "$dest/.version"
