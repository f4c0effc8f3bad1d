#!/usr/bin/env bash
# The main job (make demo): replay the 2015 seed's verbatim job files through the engine and
# print the thread's table with ours beside the published rows.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
exec python3 "$top/scripts/replay.py" 2015 "$@"
