# The differential oracle (oracle/README.md): included by the Makefile.
#   make oracle [STREAMS=N] [SEED=S] [KSRC=/path/to/linux]   build, then the campaign's table
#               [MINIMIZE=M]                                 (a variant's divergent streams past
#                                                             the M-th are not minimised, so not
#                                                             matched to known.txt: default all)
#   make oracle-build                                         build only
#   build/oracle/cgwb        test_cgwb's runs, port and kernel files side by side (exit 1: differ)
# The kernel's files are read at build time from KSRC (one tree: the variants of its version) or
# from the reference copies in ../shared/kernel-src/<version>/block; nothing of them is kept in
# the project.
ORACLE_DIR := $(BUILD)/oracle
ORACLE := $(ORACLE_DIR)/oracle
STREAMS ?= 1000
SEED ?= 1
MINIMIZE ?=
ORACLE_HZ ?= 250
ORACLE_VARIANT_LINES := $(shell KSRC="$(KSRC)" oracle/variants.sh list 2>/dev/null | tr ' ' ':')
ORACLE_IDS := $(foreach l,$(ORACLE_VARIANT_LINES),$(word 1,$(subst :, ,$(l))))
ORACLE_VOBJ := $(ORACLE_IDS:%=$(ORACLE_DIR)/%.o)
ORACLE_SHIM := $(wildcard oracle/shim/include/*.h oracle/shim/local/*.h oracle/shim/config/*.h \
	oracle/shim/rt/*.c oracle/shim/adapt/*.c) oracle/build-variant.sh oracle/variants.txt \
	$(ORACLE_DIR)/hz
ORACLE_HARNESS := $(sort $(wildcard oracle/harness/*.c))
ORACLE_HOBJ := $(ORACLE_HARNESS:oracle/harness/%.c=$(ORACLE_DIR)/harness/%.o) \
	$(ORACLE_DIR)/harness/host.o
# What schedsim links of the oracle: all but the oracle's own main and its campaign.
ORACLE_LIBOBJ := $(filter-out $(ORACLE_DIR)/harness/oracle.o,$(ORACLE_HOBJ))
ORACLE_SCHEDSIM := $(ORACLE_DIR)/schedsim
# test_cgwb's runs with the port and with the kernel's files (oracle/tools/cgwb.c).
ORACLE_CGWB := $(ORACLE_DIR)/cgwb

.PHONY: oracle oracle-build

oracle-build: $(ORACLE) $(ORACLE_SCHEDSIM) $(ORACLE_CGWB)

oracle: $(ORACLE)
	@$(ORACLE) --streams $(STREAMS) --seed $(SEED) $(if $(MINIMIZE),--minimize $(MINIMIZE)) \
		--known oracle/known.txt --quiet

# One variant: its line of variants.sh (id:policy:version:adapter:kdir:files...).
define ORACLE_VARIANT_RULE
$(ORACLE_DIR)/$(word 1,$(subst :, ,$(1))).o: $(ORACLE_SHIM) $(wildcard sched/*.h) \
		$(addprefix $(word 5,$(subst :, ,$(1)))/,$(wordlist 6,99,$(subst :, ,$(1))))
	@echo "  ORACLE $(word 1,$(subst :, ,$(1))) ($(word 5,$(subst :, ,$(1))))"
	@CC="$(CC)" ORACLE_HZ=$(ORACLE_HZ) oracle/build-variant.sh $(wordlist 1,1,$(subst :, ,$(1))) \
		$(word 3,$(subst :, ,$(1))) $(word 4,$(subst :, ,$(1))) $(word 5,$(subst :, ,$(1))) \
		$(ORACLE_DIR) $(wordlist 6,99,$(subst :, ,$(1)))
endef
$(foreach l,$(ORACLE_VARIANT_LINES),$(eval $(call ORACLE_VARIANT_RULE,$(l))))

# The HZ the variants are built with: a change rebuilds them.
$(ORACLE_DIR)/hz: FORCE
	@mkdir -p $(dir $@)
	@echo $(ORACLE_HZ) >$@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@

# The variants built, for kernel_table.c: X(id, POLICY, "version", adapter).
$(ORACLE_DIR)/variants.h: FORCE
	@mkdir -p $(dir $@)
	@for l in $(ORACLE_VARIANT_LINES); do echo "$$l" | \
		awk -F: '{printf "X(%s, %s, \"%s\", %s)\n", $$1, toupper($$2), $$3, $$4}'; done >$@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@

$(ORACLE_DIR)/harness/%.o: oracle/harness/%.c oracle/harness/oracle.h $(ORACLE_DIR)/variants.h $(HDRS) \
		$(ORACLE_DIR)/hz
	@mkdir -p $(dir $@)
	@echo "  CC $<"
	@$(CC) $(CFLAGS_ALL) $(INC) -DORACLE_HZ=$(ORACLE_HZ) -iquote oracle/harness \
		-iquote $(ORACLE_DIR) -c $< -o $@

$(ORACLE_DIR)/harness/host.o: oracle/shim/rt/host.c
	@mkdir -p $(dir $@)
	@$(CC) $(CFLAGS_ALL) -c $< -o $@

$(ORACLE): $(ORACLE_HOBJ) $(ORACLE_VOBJ) $(SIM_OBJ) $(LIBSCHED)
	@if [ -z "$(ORACLE_IDS)" ]; then KSRC="$(KSRC)" oracle/variants.sh list >/dev/null || true; echo "oracle: no kernel scheduler files found: give KSRC=/path/to/linux (a whole tree) or ORACLE_REF=/dir holding <version>/block/ copies (default ../shared/kernel-src beside the checkout; oracle/variants.sh missing lists what is looked for)" >&2; exit 2; fi
	@echo "  LD $@ ($(ORACLE_IDS))"
	@$(CC) $(CFLAGS_ALL) -o $@ $(ORACLE_HOBJ) $(ORACLE_VOBJ) $(SIM_OBJ) $(LIBSCHED) -lm

# schedsim with the kernel's files: SCHEDSIM_IMPL=kernel runs them (harness/schedsim_impl.c).
$(ORACLE_SCHEDSIM): tools/schedsim.c $(ORACLE_LIBOBJ) $(ORACLE_VOBJ) $(SIM_OBJ) $(LIBSCHED)
	@echo "  LD $@"
	@$(CC) $(CFLAGS_ALL) $(INC) -iquote oracle/harness $< -o $@ $(ORACLE_LIBOBJ) $(ORACLE_VOBJ) \
		$(SIM_OBJ) $(LIBSCHED) -lm

$(ORACLE_CGWB): oracle/tools/cgwb.c tests/unit/cgwb_scenario.h oracle/harness/oracle.h \
		$(ORACLE_LIBOBJ) $(ORACLE_VOBJ) $(SIM_OBJ) $(LIBSCHED)
	@echo "  LD $@"
	@$(CC) $(CFLAGS_ALL) $(INC) -iquote oracle/harness -iquote tests/unit $< -o $@ $(ORACLE_LIBOBJ) $(ORACLE_VOBJ) \
		$(SIM_OBJ) $(LIBSCHED) -lm

# The shim's own checks (rt/selftest.c, built like a variant without a kernel file): a unit test.
$(ORACLE_DIR)/selftest.o: $(ORACLE_SHIM) oracle/shim/rt/selftest.c
	@echo "  ORACLE selftest"
	@CC="$(CC)" ORACLE_HZ=$(ORACLE_HZ) KEEP=oracle_selftest_run oracle/build-variant.sh selftest \
		6.12 selftest - $(ORACLE_DIR)

$(BUILD)/tests/test_oracle_shim: tests/unit/test_oracle_shim.c $(ORACLE_DIR)/selftest.o \
		$(ORACLE_DIR)/harness/host.o
	@mkdir -p $(dir $@)
	@echo "  CC $<"
	@$(CC) $(CFLAGS_ALL) $(INC) -iquote tests/unit $< -o $@ $(ORACLE_DIR)/selftest.o \
		$(ORACLE_DIR)/harness/host.o -lcmocka
