#!/usr/bin/env bash
# pagecache=on: buffered I/O as the kernel's scheduler saw it (issue 16).
#  1. A direct 4k random reader beside a buffered 4k sequential writer under cfq: the writer
#     writes into the cache (without the page cache every write waited as an async request
#     behind the reader's sync I/O, ~24 writes/s), and the flusher's writeback requests, not
#     the writer's calls, reach the scheduler.
#  2. verify with buffered writes, through each policy and backend (fork and thread), on a cache
#     smaller than the file (pages are written back, reclaimed and read again).
#  3. A sequential buffered reader reaches the scheduler as read-ahead windows; an fsync=32
#     writer's fsyncs write back its dirty pages as sync requests.
#  4. 64 writers through a 16 MiB cache: it stays within its bound.
#  5. fio's invalidate=1 of a job that shares a file drops only its own range (file_offset,
#     io_size), as posix_fadvise(DONTNEED) does: the other job's cached pages stay.
#  6. fadvise_hint=random on a sequential reader is POSIX_FADV_RANDOM, as fio names it: every
#     4k read is its own request, no read-ahead window.
#  7. The kernel's tunables as options: dirty_ratio and dirty_bytes set the throttle threshold
#     (sched_stats' thresh, in pages of the 64 MiB cache), read_ahead_kb the read-ahead window
#     (a sequential reader's requests).
# sanitizers: asan tsan
# make-test sanitizers: asan
# timeout: 180
. "$(dirname "$0")/../lib.sh"
policies

# 1. The buffered writer beside a direct reader.
name=bw
run_fio $name --ioengine=external:"$ENGINE" --sched=cfq --pagecache=on --pagecache_mb=64 \
	--time_based=1 --runtime=2 --sched_stats="$WORK/$name.stats.json" \
	--name=reader --filename="$WORK/r.dat" --size=32M --direct=1 --rw=randread --bs=4k \
	--name=writer --filename="$WORK/w.dat" --size=32M --direct=0 --rw=write --bs=4k ||
	fail "$name: fio rc $? $(head -c 600 "$WORK/$name.err")"
fio_ok "$WORK/$name.json" >/dev/null || fail "$name: $(cat "$WORK/$name.err")"
pyjson "$WORK/$name.json" '
j={x["jobname"]:x for x in d["jobs"]}
w=j["writer"]["write"]["iops"]; r=j["reader"]["read"]["iops"]
print("writer %.0f IOPS (into the cache), reader %.0f IOPS" % (w, r))
assert w > 1000, ("the buffered writer still waits for its own writes", w)
assert r > 0' || fail "$name: IOPS"
pyjson "$WORK/$name.stats.json" '
p=d["pagecache"]; fl=p["flusher"]
print("flusher: %d requests, %d pages; dirtied %d written %d; bg_thresh %d thresh %d pages" % (fl["wb_requests"], fl["wb_pages"], p["dirtied"], p["written"], p["bg_thresh"], p["thresh"]))
assert fl["wb_requests"] > 0 and p["requests"]["background"] + p["requests"]["kupdate"] > 0, p["requests"]
assert p["written"] > 0 and p["nr_dirty"] == 0, (p["written"], p["nr_dirty"])
assert d["inserted"]==d["dispatched"]==d["completed"], (d["inserted"],d["dispatched"],d["completed"])
assert d["stray_completions"]==0 and d["issue_errors"]==0
jobs={x["name"]:x for x in d["jobs"]}
assert jobs["writer"]["inserted"] < 1000, ("the writer is not the one writing back", jobs["writer"]["inserted"])
' || fail "$name: sched_stats"

# 2. verify through every policy and backend, a few at a time (they wait more than they compute).
vcase() { # vcase NAME POLICY BACKEND THREAD
	local name=$1 s=$2 be=$3 thread=$4
	run_fio $name --name=v --ioengine=external:"$ENGINE" --sched=$s --backend=$be \
		--thread=$thread --pagecache=on --pagecache_mb=16 --filename="$WORK/$name.dat" \
		--size=$([ -n "${SANITIZER:-}" ] && echo 8M || echo 24M) --direct=0 --rw=write \
		--bs=4k --verify=crc32c --do_verify=1 --sched_stats="$WORK/$name.stats.json" ||
		fail "$name: fio rc $? $(head -c 600 "$WORK/$name.err")"
	fio_ok "$WORK/$name.json" >/dev/null || fail "$name: $(cat "$WORK/$name.err")"
	pyjson "$WORK/$name.stats.json" '
p=d["pagecache"]
assert p["written"] > 0 and p["nr_dirty"] == 0, (p["written"], p["nr_dirty"])
assert d["stray_completions"]==0 and d["issue_errors"]==0
print("'"$name"': written %d pages, read back %d from the device, %d reclaimed" % (p["written"], p["read_pages"], p["reclaimed"]))' ||
		fail "$name: sched_stats"
	rm -f "$WORK/$name.dat"
}
i=0
for s in $POLICIES; do
	for be in io_uring libaio psync; do
		thread=$(echo $THREAD_MODES | cut -d' ' -f$((i % $(echo $THREAD_MODES | wc -w) + 1)))
		if [ -n "${SAN_IN_SUITE:-}" ]; then
			# make test's ASan part (make asan runs all): one backend per policy, in turn, fork
			# and thread alternating
			si=$((i / 3))
			[ "$be" = "$(echo io_uring libaio psync | cut -d' ' -f$((si % 3 + 1)))" ] || { i=$((i + 1)); continue; }
			thread=$(echo $THREAD_MODES | cut -d' ' -f$((si % $(echo $THREAD_MODES | wc -w) + 1)))
		fi
		name=v-$s-$be-thread$thread
		par_run $name vcase $name $s $be $thread
		i=$((i + 1))
	done
done
par_wait

# 3. Read-ahead and fsync.
name=rafs
run_fio $name --ioengine=external:"$ENGINE" --sched=cfq --pagecache=on --pagecache_mb=64 \
	--sched_stats="$WORK/$name.stats.json" \
	--name=r --filename="$WORK/ra.dat" --size=16M --direct=0 --rw=read --bs=4k \
	--name=f --filename="$WORK/fs.dat" --size=4M --direct=0 --rw=write --bs=4k --fsync=32 ||
	fail "$name: fio rc $? $(head -c 600 "$WORK/$name.err")"
nsync=$(fio_ok "$WORK/$name.json" | cut -d' ' -f2) || fail "$name: $(cat "$WORK/$name.err")"
pyjson "$WORK/$name.stats.json" '
p=d["pagecache"]; t={j["name"]: p["jobs"][i] for i, j in enumerate(d["jobs"])}; r=t["r"]; f=t["f"]
print("reader: %d read requests for 4096 reads, %d async windows, %d pages read ahead" % (r["read_requests"], r["ra_async"], r["ra_pages"]))
print("fsync writer: %d fsyncs, %d requests, %d pages written back by them" % (f["fsyncs"], f["wb_requests"], f["wb_pages"]))
assert 0 < r["read_requests"] < 200 and r["ra_async"] > 0 and r["ra_pages"] >= 4096, r
# Each fsync writes back exactly the 32 pages dirtied since the last (and flushes). One more
# when this job leaves last: the final writeback of what is still dirty is its fsync.
assert 0 < '"$nsync"' <= f["fsyncs"] <= '"$nsync"' + 1 and f["wb_pages"] == 32 * f["fsyncs"], (f, '"$nsync"')
assert p["requests"]["fsync"] >= 2 * f["fsyncs"], p["requests"]
assert d["inserted"]==d["dispatched"]==d["completed"]
' || fail "$name: sched_stats"

# 4. 64 writers of 1 MiB each through a 16 MiB cache: it stays within its bound (pages are
#    written back and reclaimed), the dirty pages within the hard limit plus what the writers
#    dirty between two balance_dirty_pages() checks, and the cache ends clean.
#    Under ASan: 16 forked writers of 4 MiB (a device context double-forked from a 64-thread
#    fio can inherit ASan's allocator lock held by another thread and hang in its first malloc).
name=many
nj=64 sz=1M th=1
[ "${SANITIZER:-}" = asan ] && nj=16 sz=4M th=0
mkdir -p "$WORK/many"
run_fio $name --name=w --ioengine=external:"$ENGINE" --sched=cfq --pagecache=on --pagecache_mb=16 \
	--thread=$th --numjobs=$nj --directory="$WORK/many" --size=$sz --rw=write --bs=4k --direct=0 \
	--sched_stats="$WORK/$name.stats.json" || fail "$name: fio rc $? $(head -c 600 "$WORK/$name.err")"
fio_ok "$WORK/$name.json" >/dev/null || fail "$name: $(cat "$WORK/$name.err")"
pyjson "$WORK/$name.stats.json" '
p=d["pagecache"]
print("'"$nj"' writers: most cached %d of %d pages, most dirty %d (thresh %d), %d reclaimed" % (p["max_cached"], 16 * 256, p["max_dirty"], p["thresh"], p["reclaimed"]))
assert p["max_cached"] <= 16 * 256, p["max_cached"]
assert p["max_dirty"] <= p["thresh"] + '"$nj"' * 32, (p["max_dirty"], p["thresh"])
assert p["dirtied"] == p["written"] == 16384 and p["nr_dirty"] == 0 and p["reclaimed"] > 0, p
assert len(p["jobs"]) == '"$nj"'
' || fail "$name: sched_stats"
# 5. Two readers of one file, each its own half: a re-reads its half for 2 s (invalidate=0: its
#    second and later passes find the pages cached); b starts at 1 s, and fio's invalidate=1
#    at its open drops b's half only. a reads its half from the device once (plus read-ahead
#    past its end); with a whole-file invalidate it read it again after b's open.
name=inval
run_fio $name --ioengine=external:"$ENGINE" --sched=cfq --pagecache=on --pagecache_mb=64 \
	--sched_stats="$WORK/$name.stats.json" --filename="$WORK/inval.dat" --direct=0 --rw=read \
	--bs=4k --name=a --size=8M --invalidate=0 --time_based=1 --runtime=2 \
	--name=b --offset=8M --size=8M --startdelay=1 ||
	fail "$name: fio rc $? $(head -c 600 "$WORK/$name.err")"
fio_ok "$WORK/$name.json" >/dev/null || fail "$name: $(cat "$WORK/$name.err")"
pyjson "$WORK/$name.stats.json" '
p=d["pagecache"]; t={j["name"]: p["jobs"][i] for i, j in enumerate(d["jobs"])}; a=t["a"]; b=t["b"]
print("a: %d pages read from the device for its 2048 (%d read hits); b: %d" % (a["ra_pages"], a["read_hits"], b["ra_pages"]))
assert 2048 <= a["ra_pages"] <= 2048 + 256, ("a read its half again after the invalidate of b", a)
assert a["read_hits"] > 2048 and b["ra_pages"] >= 1, (a, b)
' || fail "$name: sched_stats"
# 6. fadvise_hint=random, named: FMODE_RANDOM whatever the job's pattern (fio's
#    td_io_open_file()); the job's pattern would have given a sequential reader 20 windows.
name=fhint
run_fio $name --ioengine=external:"$ENGINE" --sched=cfq --pagecache=on --pagecache_mb=64 \
	--sched_stats="$WORK/$name.stats.json" --name=r --filename="$WORK/fh.dat" --size=4M \
	--direct=0 --rw=read --bs=4k --fadvise_hint=random ||
	fail "$name: fio rc $? $(head -c 600 "$WORK/$name.err")"
fio_ok "$WORK/$name.json" >/dev/null || fail "$name: $(cat "$WORK/$name.err")"
pyjson "$WORK/$name.stats.json" '
r=d["pagecache"]["jobs"][0]
print("fadvise_hint=random: %d read requests for 1024 reads, %d async windows" % (r["read_requests"], r["ra_async"]))
assert r["read_requests"] == 1024 and r["ra_async"] == 0, r
' || fail "$name: sched_stats"
# 7. vm.dirty_ratio / vm.dirty_bytes, queue/read_ahead_kb and queue/max_sectors_kb as engine
# options.
for t in "" "--dirty_ratio=40" "--dirty_bytes=8388608" "--read_ahead_kb=512" "--max_sectors_kb=128"; do
	name=tun${t//[^a-z0-9]/}
	run_fio $name --ioengine=external:"$ENGINE" --sched=cfq --pagecache=on --pagecache_mb=64 \
		--device_model=ssd --sched_stats="$WORK/$name.stats.json" $t \
		--name=w --filename="$WORK/tw.dat" --size=8M --direct=0 --rw=write --bs=64k \
		--name=r --filename="$WORK/tr.dat" --size=8M --direct=0 --rw=read --bs=4k ||
		fail "$name: fio rc $? $(head -c 600 "$WORK/$name.err")"
	pyjson "$WORK/$name.stats.json" '
p=d["pagecache"]; r={j["name"]: p["jobs"][i] for i, j in enumerate(d["jobs"])}["r"]
print("%-28s thresh %5d pages, bg_thresh %5d; reader: %d requests (%d async windows) for 2048 reads" % ("'"${t:-defaults}"'", p["thresh"], p["bg_thresh"], r["read_requests"], r["ra_async"]))
wb = ("fsync", "kupdate", "background", "dirtier")
kib = 4 * sum(p["pages"][k] for k in wb) // max(1, sum(p["requests"][k] for k in wb))
print("%-28s writeback: %d KiB per request" % ("", kib))
open("'"$WORK/$name.fig"'", "w").write("%d %d %d %d" % (p["thresh"], p["bg_thresh"], r["read_requests"], kib))
' || fail "$name: sched_stats"
done
read -r th0 bg0 rq0 kib0 <"$WORK/tun.fig"
read -r th40 _ _ _ <"$WORK/tundirtyratio40.fig"
read -r thb _ _ _ <"$WORK/tundirtybytes8388608.fig"
read -r _ _ rq512 _ <"$WORK/tunreadaheadkb512.fig"
read -r _ _ _ kib128 <"$WORK/tunmaxsectorskb128.fig"
# 64 MiB = 16384 pages: 20% (the default) and 40%; 8 MiB = 2048 pages
[ "$th0" -ge 3200 ] && [ "$th0" -le 3300 ] || fail "default dirty_ratio 20: thresh $th0 pages"
[ "$th40" -ge $((2 * th0 - 2)) ] && [ "$th40" -le $((2 * th0 + 2)) ] || fail "dirty_ratio=40: thresh $th40 (default $th0)"
[ "$thb" = 2048 ] || fail "dirty_bytes=8 MiB: thresh $thb pages"
# 512 KiB windows: at most about half the requests of 128 KiB ones (256 with fadvise_hint's doubling)
[ "$rq512" -le $((rq0 * 6 / 10)) ] || fail "read_ahead_kb=512: $rq512 requests against $rq0 at 128"
# writeback requests within max_sectors_kb (the 6.12 profile's own limit is 1280 KiB, and 128 pages)
[ "$kib128" -le 128 ] && [ "$kib0" -gt 128 ] || fail "max_sectors_kb=128: writeback $kib128 KiB per request ($kib0 by default)"
# 8. pagecache=auto, the default: a buffered job gets the engine's page cache (6.12), a run of
#    direct jobs none; a buffered job beside a direct one shares the domain's cache, the direct
#    one bypasses it; writeback=fsync (a model's own deferred writeback) gets none; a run of
#    direct jobs joins a named domain that has a page cache (its jobs bypass it).
autorun() { # name fio-args...: prints "profile-or-none reads-through-the-cache"
	local name=$1
	shift
	run_fio "$name" --ioengine=external:"$ENGINE" --sched=cfq --sched_stats="$WORK/$name.stats.json" "$@" ||
		fail "$name: fio rc $? $(head -c 600 "$WORK/$name.err")"
	fio_ok "$WORK/$name.json" >/dev/null || fail "$name: $(cat "$WORK/$name.err")"
	pyjson "$WORK/$name.stats.json" '
p=d.get("pagecache")
print(p["profile"] if p else "none", sum(j["read_hits"]+j["read_waits"] for j in p["jobs"]) if p else 0)'
}
[ "$(autorun abuf --name=r --filename="$WORK/a.dat" --size=1M --rw=read --bs=4k)" = "6.12 256" ] ||
	fail "pagecache=auto, a buffered reader: $(autorun abuf --name=r --filename="$WORK/a.dat" --size=1M --rw=read --bs=4k)"
[ "$(autorun adir --name=r --filename="$WORK/a.dat" --size=1M --rw=read --bs=4k --direct=1)" = "none 0" ] ||
	fail "pagecache=auto, a direct reader: a page cache"
[ "$(autorun amix --name=r --filename="$WORK/a.dat" --size=1M --rw=read --bs=4k \
	--name=d --filename="$WORK/a.dat" --size=1M --rw=read --bs=4k --direct=1)" = "6.12 256" ] ||
	fail "pagecache=auto, a buffered and a direct reader: not the buffered one alone through the cache"
[ "$(autorun awbf --name=w --filename="$WORK/a.dat" --size=1M --rw=write --bs=4k --fsync=8 \
	--device_model=ssd --writeback=fsync)" = "none 0" ] ||
	fail "pagecache=auto with writeback=fsync: a page cache"
dom=pcauto$$
"$FIO" --output=/dev/null --ioengine=external:"$ENGINE" --sched=cfq --sched_domain=$dom \
	--name=b --filename="$WORK/a.dat" --size=1M --rw=randread --bs=4k --time_based --runtime=3 \
	2>"$WORK/nb.err" &
p=$!
sleep 1
run_fio ajoin --ioengine=external:"$ENGINE" --sched=cfq --sched_domain=$dom --name=d \
	--filename="$WORK/a.dat" --size=1M --rw=randread --bs=4k --direct=1 --runtime=1 --time_based ||
	fail "a direct run joining a domain with a page cache: $(head -c 300 "$WORK/ajoin.err")"
fio_ok "$WORK/ajoin.json" >/dev/null || fail "ajoin: $(cat "$WORK/ajoin.err")"
wait $p || fail "the buffered run of the named domain: $(head -c 300 "$WORK/nb.err")"
echo "pagecache=auto: buffered 6.12, direct none, mixed shared, writeback=fsync none, direct joins a cached domain"
echo "ok"
