# SPDX-License-Identifier: GPL-2.0
#
# cfilter: orchestration only. Each part builds in its own folder:
#   kmod/ + Kbuild -> cfilter.ko     bpf/ -> cfilter.bpf.o, cfilter.skel.h
#   user/ -> cfctl                   tests/host, tests/selftests -> tests
#
# By default the module is built for the guest kernel the tests boot
# (Debian's, prepared by scripts/kernel.sh with the BTF a kfunc needs).
# KDIR=/lib/modules/$(uname -r)/build builds it for another kernel.

# Goals that must work before `make deps` has installed anything.
NO_KERNEL_GOALS := deps clean help demo check
ifeq ($(filter-out $(NO_KERNEL_GOALS),$(MAKECMDGOALS)),)
ifneq ($(MAKECMDGOALS),)
SKIP_KERNEL_MK := 1
endif
endif

# KDIR given by the user: build for that kernel, fetch no guest kernel.
ifneq ($(filter command line environment,$(origin KDIR)),)
SKIP_KERNEL_MK := 1
endif

ifndef SKIP_KERNEL_MK
# Written by scripts/kernel.sh; make rebuilds it (and restarts) when missing.
-include .cache/kernel.mk
.cache/kernel.mk: scripts/kernel.sh
	scripts/kernel.sh
endif

KSFT_DIR ?= $(CURDIR)/.cache/ksft
export KSFT_DIR

.PHONY: all module bpf user selftests host-tests check demo deps kernel \
	vm-run clean help

all: module user selftests

help:
	@echo 'make demo          install deps, build, show blocking in a guest'
	@echo 'make check         run every test (host and guest)'
	@echo 'make deps          install the Debian packages needed'
	@echo 'make               build cfilter.ko, cfctl and the selftests'
	@echo 'make vm-run SCRIPT=f.sh   run f.sh as root in the guest'
	@echo 'make KDIR=/lib/modules/$$(uname -r)/build module'

deps:
	scripts/deps.sh

kernel: .cache/kernel.mk

module:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

bpf:
	$(MAKE) -C bpf

user: bpf
	$(MAKE) -C user

selftests: bpf
	$(MAKE) -C tests/selftests

host-tests:
	$(MAKE) -C tests/host run

vm-run:
	@test -n "$(SCRIPT)" || { echo 'usage: make vm-run SCRIPT=path/to/script.sh' >&2; exit 2; }
	scripts/vm-run.sh $(SCRIPT)

check:
	scripts/check.sh

demo:
	scripts/demo.sh

clean:
	$(MAKE) -C bpf clean
	$(MAKE) -C user clean
	$(MAKE) -C tests/host clean
	$(MAKE) -C tests/selftests clean
	rm -rf kmod/*.o kmod/.*.cmd *.o .*.cmd *.ko *.mod *.mod.c \
		modules.order Module.symvers .tmp_versions
