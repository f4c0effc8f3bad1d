#!/usr/bin/env bash
# make bench: engine overhead against fio's own engines, in one run, as ratios (absolute
# timings on a shared VM are noisy; ratios within one run are what to compare). Never fails on
# speed. BENCH_RUNTIME (s, default 10), BENCH_DIR (default build/bench: bench.dat, BENCH_SIZE, and
# cached.dat, 256 MiB, for the page-cache case), BENCH_SIZE (1g).
# The policy core microbenchmark (build/tools/sched_microbench) runs first; BENCH_MICRO_ONLY=1
# runs only it (no file, no fio). See scripts/bench.py for BENCH_MICRO_ARGS, BENCH_CALLGRIND.
# BENCH_SCALE_ONLY=1 runs only the jobs-scaling table (64 to 4088 jobs, thread and fork, against
# psync; BENCH_SCALE_JOBS, BENCH_SCALE_ROUNDS, BENCH_SCALE_RUNTIME, BENCH_SCALE_RAMP).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
engine=$top/build/libschedengine.so
runtime=${BENCH_RUNTIME:-10}
dir=${BENCH_DIR:-$top/build/bench}
size=${BENCH_SIZE:-1g}
if [ "${BENCH_MICRO_ONLY:-0}" = 1 ]; then
	BENCH_ENGINE=$engine exec python3 "$top/scripts/bench.py" "$@"
fi
mkdir -p "$dir"
file=$dir/bench.dat
if [ "${BENCH_SCALE_ONLY:-0}" = 1 ]; then
	BENCH_FILE=$file BENCH_ENGINE=$engine exec python3 "$top/scripts/bench.py" "$@"
fi
if [ ! -f "$file" ] || [ "$(stat -c %s "$file")" -lt 1073741824 ]; then
	echo "bench: laying out $file ($size)"
	fio --name=layout --filename="$file" --size="$size" --rw=write --bs=1m --direct=1 \
		--ioengine=psync --output=/dev/null
fi
export BENCH_FILE=$file BENCH_ENGINE=$engine BENCH_RUNTIME=$runtime BENCH_SIZE=$size
exec python3 "$top/scripts/bench.py" "$@"
