# schedengine: a fio external ioengine with userspace CFQ/BFQ/deadline/none schedulers.
# `make` builds build/libschedengine.so against the fio source of the fio on PATH.
# `make test` does all set-up (packages, fio source) and runs the whole suite.

PREFIX ?= /usr/local
CC ?= cc
BUILD ?= build
FIO ?= fio
# fio source of exactly the installed fio's version: fetched by scripts/setup.sh, or given.
FIO_SRC ?= build/fio-src

WARN := -Wall -Wextra -Werror -Wno-unused-parameter
CSTD := -std=gnu11
OPT ?= -O2 -g
# -fno-semantic-interposition: nothing interposes the engine's own functions (the .so exports
# only fio's ops table, engine/fio/exports.map), so the compiler may inline and call them directly.
BASE_CFLAGS := $(CSTD) $(WARN) $(OPT) -fPIC -fno-semantic-interposition -D_GNU_SOURCE -D_LARGEFILE_SOURCE -D_FILE_OFFSET_BITS=64
SAN ?=
CFLAGS_ALL = $(BASE_CFLAGS) $(SAN) $(EXTRA_CFLAGS)

# Rooms (see docs/internals.md, "Layout"): the pure ones build without fio headers and link into the unit
# tests; only the fio glue (engine/fio) and the backends see fio's headers.
SCHED_SRC := $(sort $(wildcard sched/*.c))
BLK_SRC := $(sort $(wildcard blk/*.c))
PAGECACHE_SRC := $(sort $(wildcard pagecache/*.c))
MODEL_SRC := $(sort $(wildcard models/*.c))
DOMAIN_SRC := $(sort $(wildcard engine/domain/*.c engine/backends/*.c))
GLUE_SRC := $(sort $(wildcard engine/fio/*.c))
SIM_SRC := $(sort $(wildcard sim/*.c))
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
TOOL_SRC := $(sort $(wildcard tests/tools/*.c))

INC := -iquote sched -iquote blk -iquote pagecache -iquote models -iquote engine/domain \
	-iquote engine/backends -iquote engine/fio -iquote sim
HDRS = $(wildcard sched/*.h blk/*.h pagecache/*.h models/*.h engine/*/*.h sim/*.h)

obj = $(1:%.c=$(BUILD)/obj/%.o)
SCHED_OBJ := $(call obj,$(SCHED_SRC))
PURE_OBJ := $(call obj,$(BLK_SRC) $(PAGECACHE_SRC) $(MODEL_SRC))
DOMAIN_OBJ := $(call obj,$(DOMAIN_SRC))
FIO_OBJ := $(call obj,$(GLUE_SRC))
SIM_OBJ := $(call obj,$(SIM_SRC))
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
TOOL_BIN := $(TOOL_SRC:tests/tools/%.c=$(BUILD)/tools/%)

ENGINE_SO := $(BUILD)/libschedengine.so
SCHEDBENCH_SRC := $(sort $(wildcard schedbench/*.c))
SCHEDBENCH := $(if $(SCHEDBENCH_SRC),$(BUILD)/schedbench)
# The policy core and the block layer: what the simulator, tools and tests link.
LIBSCHED := $(BUILD)/libsched.a
# modeldev: a device model served as a block device (FUSE + loop); needs libfuse3-dev.
MODELDEV_SRC := $(sort $(wildcard modeldev/*.c))
MODELDEV := $(if $(shell pkg-config --exists fuse3 2>/dev/null && echo y),$(BUILD)/modeldev)

FIO_CPPFLAGS = -I$(FIO_SRC) -include $(FIO_SRC)/config-host.h
ENGINE_LIBS := -luring -laio -lpthread -lm

.SECONDARY:

.PHONY: FORCE all engine-core setup fio-check install uninstall test unit integration stress asan tsan asan-build \
	tsan-build bench \
	demo replay-all clean format

# The simulator's job-file front end: virtual-time cells of schedbench (clock = virtual).
SCHEDSIM := $(BUILD)/schedsim

# Set-up once per build tree (scripts/setup.sh: packages, fio source) before anything is built:
# the stamp is included as a makefile, so make runs set-up first and then reads this Makefile
# again (what is built depends on what set-up installs: pkg-config fuse3 is asked as it is read)
# before any goal starts; a parallel make cannot compile before the headers are there (libaio.h
# was compiled for before set-up had installed it, with -j2). Goals that build nothing skip it.
SETUP_STAMP := $(BUILD)/.setup-done
NO_SETUP_GOALS := clean format uninstall setup
ifneq ($(filter-out $(NO_SETUP_GOALS),$(or $(MAKECMDGOALS),all)),)
-include $(SETUP_STAMP)
endif

all: $(ENGINE_SO) $(LIBSCHED) $(TOOL_BIN) $(SCHEDBENCH) $(MODELDEV) $(SCHEDSIM)

# The engine, the policy library and the test tools: what fio-facing tests need.
engine-core: $(ENGINE_SO) $(LIBSCHED) $(TOOL_BIN)

# Installs missing packages and fetches the fio source (idempotent; quiet when nothing to do).
setup:
	@scripts/setup.sh && mkdir -p $(BUILD) && touch $(SETUP_STAMP)

fio-check: $(FIO_SRC)/config-host.h
	@scripts/fio-version-check.sh "$(FIO)" "$(FIO_SRC)"

$(SETUP_STAMP): scripts/setup.sh
	@scripts/setup.sh
	@mkdir -p $(dir $@) && touch $@

$(FIO_SRC)/config-host.h: | $(SETUP_STAMP)
	@test -f $(FIO_SRC)/ioengines.h || { echo "fio source not found in $(FIO_SRC): run 'make setup' or pass FIO_SRC=/path/to/fio-<version>" >&2; exit 1; }
	@echo "  CONFIGURE $(FIO_SRC)"
	@cd $(FIO_SRC) && ./configure --disable-native --prefix=/usr >/dev/null

# Only the fio glue sees fio's headers; every other room is built without them.
$(BUILD)/obj/engine/fio/%.o: engine/fio/%.c $(HDRS) | fio-check
	@mkdir -p $(dir $@)
	@echo "  CC $<"
	@$(CC) $(CFLAGS_ALL) $(FIO_CPPFLAGS) $(INC) -iquote $(BUILD) -c $< -o $@

# The revision the engine carries (an ELF note, engine/fio/revision.c): rewritten only when it
# changes, so an unchanged tree does not relink.
ENGINE_REVISION := $(shell git describe --always --dirty 2>/dev/null || echo unknown)
$(BUILD)/revision.h: FORCE
	@mkdir -p $(dir $@)
	@echo '#define SE_REVISION "$(ENGINE_REVISION)"' >$@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@
$(BUILD)/obj/engine/fio/revision.o: $(BUILD)/revision.h
FORCE:

$(BUILD)/obj/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	@echo "  CC $<"
	@$(CC) $(CFLAGS_ALL) $(INC) -c $< -o $@

$(LIBSCHED): $(SCHED_OBJ) $(PURE_OBJ)
	@rm -f $@
	@ar rcs $@ $^

$(ENGINE_SO): $(FIO_OBJ) $(DOMAIN_OBJ) $(SCHED_OBJ) $(PURE_OBJ) engine/fio/exports.map
	@echo "  LD $@"
	@$(CC) $(SAN) -shared -Wl,--build-id -Wl,--version-script=engine/fio/exports.map -o $@ \
		$(filter %.o,$^) $(ENGINE_LIBS)

UNIT_SUPPORT_SRC := $(sort $(wildcard tests/unit/support*.c))

$(BUILD)/tests/%: tests/unit/%.c $(LIBSCHED) $(SIM_OBJ) $(DOMAIN_OBJ) $(UNIT_SUPPORT_SRC) $(wildcard tests/unit/*.h)
	@mkdir -p $(dir $@)
	@echo "  CC $<"
	@$(CC) $(CFLAGS_ALL) $(INC) -iquote tests/unit $< $(UNIT_SUPPORT_SRC) -o $@ $(SIM_OBJ) $(DOMAIN_OBJ) $(LIBSCHED) -lcmocka -lm $(ENGINE_LIBS)

# The harness: a C command linking libsqlite3, inih (matrices) and nettle (SHA-256). No path of
# this tree is compiled in: it finds its data from its own location (build tree or $(PREFIX)).
SCHEDBENCH_VERSION := $(shell git describe --always --dirty 2>/dev/null || echo unknown)
# It links the device models' pure objects (models/) to check a matrix's [device].
$(BUILD)/schedbench: $(SCHEDBENCH_SRC) $(wildcard schedbench/*.h) $(MODEL_SRC) $(wildcard models/*.h) | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	@echo "  CC $@"
	@$(CC) $(CFLAGS_ALL) -DSCHEDBENCH_VERSION='"$(SCHEDBENCH_VERSION)"' -ffile-prefix-map=$(CURDIR)=. \
		-Ischedbench -iquote models $(SCHEDBENCH_SRC) $(MODEL_SRC) -o $@ \
		-lsqlite3 -linih -lnettle -lm

# schedsim: a job file (read with fio --showcmd) in virtual time: the policies, block layer and
# models of libsched.a driven by the simulator (sim/).
$(SCHEDSIM): tools/schedsim.c $(LIBSCHED) $(SIM_OBJ)
	@mkdir -p $(dir $@)
	@echo "  CC $@"
	@$(CC) $(CFLAGS_ALL) $(INC) $< -o $@ $(SIM_OBJ) $(LIBSCHED) -lm

# The model-backed device daemon links the engine's own model objects.
$(BUILD)/modeldev: $(MODELDEV_SRC) $(wildcard modeldev/*.h) $(call obj,$(MODEL_SRC))
	@mkdir -p $(dir $@)
	@echo "  CC $@"
	@$(CC) $(CFLAGS_ALL) -Wno-format-truncation -iquote modeldev -iquote models \
		$$(pkg-config --cflags fuse3) \
		$(MODELDEV_SRC) $(call obj,$(MODEL_SRC)) -o $@ $$(pkg-config --libs fuse3) -lpthread -lm

$(BUILD)/tools/%: tests/tools/%.c $(LIBSCHED) $(DOMAIN_OBJ)
	@mkdir -p $(dir $@)
	@$(CC) $(CFLAGS_ALL) $(INC) $< -o $@ $(DOMAIN_OBJ) $(LIBSCHED) $(ENGINE_LIBS)

# schedbench's data (schema, report.py and its modules, the seed jobs) in $(PREFIX)/share/schedengine,
# laid out as in this tree: the installed binary finds it from its own location.
SCHEDBENCH_DATA := results/schema.sql scripts/report.py schedbench/README-matrix.md jobs/README.md \
	$(wildcard scripts/schedreport/*.py scripts/schedreport/templates/*) \
	$(filter-out %__pycache__,$(wildcard jobs/*/*))

install: all
	install -d $(DESTDIR)$(PREFIX)/lib/fio $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $(ENGINE_SO) $(DESTDIR)$(PREFIX)/lib/fio/libschedengine.so
	$(if $(SCHEDBENCH),install -m 0755 $(SCHEDBENCH) $(DESTDIR)$(PREFIX)/bin/schedbench)
	$(if $(SCHEDBENCH),install -m 0755 $(SCHEDSIM) $(DESTDIR)$(PREFIX)/bin/schedsim)
	$(if $(SCHEDBENCH),@for f in $(SCHEDBENCH_DATA); do \
		install -D -m 0644 $$f $(DESTDIR)$(PREFIX)/share/schedengine/$$f || exit 1; done)
	$(if $(SCHEDBENCH),chmod 0755 $(DESTDIR)$(PREFIX)/share/schedengine/scripts/report.py)

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/lib/fio/libschedengine.so $(DESTDIR)$(PREFIX)/bin/schedbench \
		$(DESTDIR)$(PREFIX)/bin/schedsim
	rm -rf $(DESTDIR)$(PREFIX)/share/schedengine

# The whole suite: set-up, build, unit, integration, stress, sanitizers. Ends "N passed, N failed".
test: setup
	@$(MAKE) --no-print-directory all $(UNIT_BIN)
	@scripts/run-tests.sh all

unit: all $(UNIT_BIN)
	@scripts/run-tests.sh unit

integration: all
	@scripts/run-tests.sh integration

stress: all
	@scripts/run-tests.sh stress

# Sanitizer builds live in their own build directories. `make asan` / `make tsan` build and run
# what is chosen for them (scripts/run-tests.sh "sanitizer": ASan every unit binary, TSan the
# threaded ones, and the scripts whose header lists the sanitizer; TSan runs fio in thread mode).
ASAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
TSAN_FLAGS := -fsanitize=thread -fno-omit-frame-pointer

asan: setup
	@$(MAKE) --no-print-directory asan-build
	@SANITIZER=asan BUILD=build/asan scripts/run-tests.sh sanitizer

tsan: setup
	@$(MAKE) --no-print-directory tsan-build
	@SANITIZER=tsan BUILD=build/tsan scripts/run-tests.sh sanitizer

# SAN_TARGETS: what a sanitizer tree builds besides the unit binaries; make test's sanitizer
# parts need only engine-core (scripts/run-tests.sh sets it).
SAN_TARGETS ?= all
asan-build:
	@$(MAKE) --no-print-directory BUILD=build/asan FIO_SRC=$(abspath $(FIO_SRC)) \
		SAN="$(ASAN_FLAGS)" $(SAN_TARGETS) build/asan/tests/.unit

tsan-build:
	@$(MAKE) --no-print-directory BUILD=build/tsan FIO_SRC=$(abspath $(FIO_SRC)) \
		SAN="$(TSAN_FLAGS)" $(SAN_TARGETS) build/tsan/tests/.unit

$(BUILD)/tests/.unit: $(UNIT_BIN)
	@touch $@

bench: setup
	@$(MAKE) --no-print-directory all
	@scripts/bench.sh

# The demo's closing wall time counts from make reading this file: set-up and build included.
ifneq ($(filter demo,$(MAKECMDGOALS)),)
DEMO_T0 := $(shell date +%s.%N)
endif
demo: setup
	@$(MAKE) --no-print-directory all
	@DEMO_T0=$(DEMO_T0) scripts/demo.sh

# Every seed's matrix (jobs/*/matrix.ini) into results/, with each thread's table.
replay-all: setup
	@$(MAKE) --no-print-directory all
	@scripts/replay-all.sh

format:
	clang-format -i sched/*.[ch] blk/*.[ch] pagecache/*.[ch] engine/*/*.[ch] sim/*.[ch] tests/unit/*.[ch] \
		tests/tools/*.c schedbench/*.[ch] tools/*.c

clean:
	rm -rf $(BUILD)/obj $(BUILD)/tests $(BUILD)/tools $(BUILD)/asan $(BUILD)/tsan \
		$(ENGINE_SO) $(LIBSCHED)
include oracle/oracle.mk
