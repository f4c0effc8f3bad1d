#!/usr/bin/env bash
# Rewrites tests/seconds.tsv from the last full run's build/test-logs/results.tsv (the plain
# build's scripts): scripts/run-tests.sh starts the longest scripts first.
set -eu
cd "$(dirname "$0")/.."
r=${1:-build/test-logs/results.tsv}
[ -s "$r" ] || { echo "test-seconds.sh: $r: no results (run make test first)" >&2; exit 2; }
{
	echo "# Seconds each script took in a full 'make test' (2 CPUs, $(date +%Y-%m-%d)): scripts/run-tests.sh starts"
	echo "# the longest first. Only the order depends on it; refresh with scripts/test-seconds.sh."
	awk -F'\t' '$1 == "plain" && $2 !~ /^unit/ { print $2 "\t" $4 }' "$r" | sort
} >tests/seconds.tsv.new
mv tests/seconds.tsv.new tests/seconds.tsv
