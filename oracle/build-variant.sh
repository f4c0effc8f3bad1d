#!/usr/bin/env bash
# Builds one variant of the oracle: the kernel's own scheduler file(s), read from a kernel tree
# at build time (never copied into the project), compiled unmodified against the shim, with the
# shim's runtime and the block-core adapter, into one relocatable object whose only global
# symbol is the variant's ops table (oracle_<id>_ops): two kernel versions' copies of the same
# functions then live side by side in one binary.
#
#   build-variant.sh ID VERSION ADAPTER KDIR OUTDIR FILE...
#     KDIR: the directory holding the files (<tree>/block); OUTDIR: where the object goes.
#     KEEP (environment): the symbol kept global (default oracle_ID_ops).
set -euo pipefail
id=$1 ver=$2 adapter=$3 kdir=$4 out=$5
shift 5
top=$(cd "$(dirname "$0")/.." && pwd)
shim=$top/oracle/shim
CC=${CC:-cc}
src=$out/$id/src
obj=$out/$id/obj
rm -rf "$src" "$obj"
mkdir -p "$src" "$obj"
major=${ver%%.*}
minor=${ver#*.}
minor=${minor%%.*}
kver=$((major * 100 + minor))
# 2.6.x: the third number too (ORACLE_KSUB, 0 for M.m versions): KV3() in oracle_kernel.h.
sub=${ver#*.*.}
[ "$sub" = "$ver" ] && sub=0
gccinc=$($CC -print-file-name=include)
# The block-local headers ("blk.h"...) are found beside the .c first: the shim's go there, then
# the tree's own headers the variant names (bfq-iosched.h), which the files include as theirs.
cp "$shim"/local/*.h "$src"/
for f in "$@"; do
	[ -f "$kdir/$f" ] || { echo "oracle: $kdir/$f: not found (variant $id)" >&2; exit 1; }
	cp "$kdir/$f" "$src/"
done
common=(-std=gnu11 -O2 -g -fno-strict-aliasing -fno-common -nostdinc -ffreestanding
	-isystem "$gccinc" -I "$shim/include" -iquote "$top/sched"
	-DORACLE_KVER="$kver" -DORACLE_KSUB="$sub" -DORACLE_VARIANT="$id" -DORACLE_HZ="${ORACLE_HZ:-250}")
# A variant's kernel configuration (CONFIG_* and the shim headers it needs beyond the common
# ones), included first in every file of the variant when it exists.
[ -f "$shim/config/$id.h" ] && common+=(-include "$shim/config/$id.h")
objs=()
for f in "$@"; do
	case $f in *.c) ;; *) continue ;; esac
	# The kernel's file as it is: no warnings of ours asked for, but a call to a function the shim
	# does not declare (or a mismatched type) is an error, never an implicit declaration.
	$CC "${common[@]}" -Werror=implicit-function-declaration -Werror=implicit-int \
		-Werror=incompatible-pointer-types -Werror=int-conversion -Werror=return-type \
		-iquote "$src" -c "$src/$f" -o "$obj/${f%.c}.o"
	objs+=("$obj/${f%.c}.o")
done
# The block-core adapter; "selftest" is the shim's own checks (no kernel file, no adapter).
afile=$shim/adapt/$adapter.c
[ "$adapter" = selftest ] && afile=$shim/rt/selftest.c
for f in "$shim"/rt/rbtree.c "$shim"/rt/elevator.c "$shim"/rt/rt.c "$shim"/rt/blkcg.c "$afile"; do
	b=$(basename "$f" .c)
	$CC "${common[@]}" -Wall -Wextra -Werror -Wno-unused-parameter -Wno-sign-compare \
		-Wno-missing-field-initializers -iquote "$src" -c "$f" -o "$obj/shim-$b.o"
	objs+=("$obj/shim-$b.o")
done
ld -r -o "$obj/all.o" "${objs[@]}"
objcopy --keep-global-symbol="${KEEP:-oracle_${id}_ops}" "$obj/all.o" "$out/$id.o"
