#!/usr/bin/env bash
# The variants of oracle/variants.txt whose kernel files are here, one a line:
#   id policy version adapter kdir files...
# Sources: KSRC (one kernel tree, any version: the variants of its major.minor) or, without it,
# the reference copies in ORACLE_REF/<version>/block (default ../shared/kernel-src beside the
# project). `variants.sh missing` lists those that cannot be built, with the reason.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
mode=${1:-list}
ref=${ORACLE_REF:-$top/../shared/kernel-src}
[ -d "$ref" ] && ref=$(cd "$ref" && pwd)
ksrc=${KSRC:-}
kver=
if [ -n "$ksrc" ]; then
	if [ ! -f "$ksrc/Makefile" ] || [ ! -d "$ksrc/block" ]; then
		echo "oracle: KSRC=$ksrc: not a kernel tree (no Makefile and block/)" >&2
		exit 2
	fi
	v=$(sed -n 's/^VERSION *= *//p' "$ksrc/Makefile" | head -n1)
	p=$(sed -n 's/^PATCHLEVEL *= *//p' "$ksrc/Makefile" | head -n1)
	kver=$v.$p
fi
grep -vE '^\s*(#|$)' "$top/oracle/variants.txt" | while read -r id policy version adapter files; do
	if [ -n "$ksrc" ]; then
		kdir=$ksrc/block
		if [ "$version" != "$kver" ]; then
			[ "$mode" = missing ] && echo "$id: KSRC is $kver"
			continue
		fi
	else
		kdir=$ref/$version/block
	fi
	ok=1
	for f in $files; do
		if [ ! -f "$kdir/$f" ]; then
			ok=0
			[ "$mode" = missing ] && echo "$id: $kdir/$f not found"
			break
		fi
	done
	[ $ok = 1 ] && [ "$mode" = list ] && echo "$id $policy $version $adapter $kdir $files"
done
exit 0
