# SPDX-License-Identifier: GPL-2.0
#
# cfilter: orchestration only. Each part builds in its own folder:
#   core/ + kmod/ + Kbuild -> cfilter.ko     bpf/ -> cfilter.bpf.o, cfilter.skel.h
#   user/ -> cfctl                   tests/host, tests/selftests -> tests
#
# By default the module is built for a guest kernel the tests boot
# (Debian's, prepared by scripts/vm/kernel.sh): KERNEL=6.1 (Debian 12, the
# default) or KERNEL=6.12 (Debian 13).
# KDIR=/lib/modules/$(uname -r)/build builds it for another kernel.
# btf/build-module.sh builds it, with the module BTF a kfunc needs, also
# where the kernel's headers lack what kbuild makes it with (Debian 12's).

# Goals that must work before `make deps` has installed anything.
NO_KERNEL_GOALS := deps clean help demo check check-debug bench fuzz stress \
	uninstall install-dkms install-dkms-sources uninstall-dkms bench-load \
	bench-xdp bench-xdp-insns deb
ifeq ($(filter-out $(NO_KERNEL_GOALS),$(MAKECMDGOALS)),)
ifneq ($(MAKECMDGOALS),)
SKIP_KERNEL_MK := 1
endif
endif

# KDIR given by the user: build for that kernel, fetch no guest kernel.
ifneq ($(filter command line environment,$(origin KDIR)),)
SKIP_KERNEL_MK := 1
else ifneq ($(filter install,$(MAKECMDGOALS)),)
# make install is for this host: the running kernel's build tree, never
# the guest kernel's the tests boot.
KDIR := /lib/modules/$(shell uname -r)/build
SKIP_KERNEL_MK := 1
endif

KERNEL ?= 6.1
export KERNEL

# The included kernel-*.mk brings a rule; the default goal stays `all`.
.DEFAULT_GOAL := all

ifndef SKIP_KERNEL_MK
# Written by scripts/vm/kernel.sh; make rebuilds it (and restarts) when missing.
-include .cache/kernel-$(KERNEL).mk
.cache/kernel-$(KERNEL).mk: scripts/vm/kernel.sh
	scripts/vm/kernel.sh $(KERNEL)
endif

# The release: the top entry of debian/changelog, the one place the version
# is kept. cfctl's Makefile and the module's Kbuild read it there too; a copy
# of the module's sources has no debian/, so kbuild is told it.
VERSION := $(shell sed -n '1s/^cfilter (\([^ ]*\)).*/\1/p' debian/changelog)

KSFT_DIR ?= $(CURDIR)/.cache/ksft
export KSFT_DIR

# kbuild builds an M= module inside its source folder, so two kernels'
# objects would overwrite each other: the default kernel (and KDIR=) builds
# at the root, any other from a copy of the sources in MODULE_DIR
# (.cache/build-<kernel>/). A file is copied only when its content differs,
# so kbuild rebuilds only what changed.
MODULE_DIR ?= $(CURDIR)
override MODULE_DIR := $(abspath $(MODULE_DIR))
MODULE_SRCS := Kbuild $(wildcard core/*.[ch] kmod/*.[ch] btf/*.[ch] btf/*.sh) btf/Makefile \
	$(shell find include -name '*.h')
# kbuild notices neither a new compiler nor a new pahole: a change of either
# (or of KDIR) cleans the module's folder. The record is a .cmd file, as
# kbuild's own command records are, so that git and `make clean` treat it
# alike. (kbuild's own clean would search the whole root, .cache included.)
TOOLCHAIN = $(KDIR) $(KBUILD_ARGS) $(shell gcc --version 2>/dev/null | head -n 1) \
	$(shell pahole --version 2>/dev/null)
TOOLCHAIN_RECORD := $(MODULE_DIR)/.toolchain.cmd
MODULE_OUTPUTS := core/*.o core/.*.cmd kmod/*.o kmod/.*.cmd *.o .*.cmd *.ko *.mod *.mod.c \
	modules.order Module.symvers .tmp_versions .objtree btf/resolve_btfids

.PHONY: all module module-sources bpf user selftests host-tests check demo \
	deps kernel vm-run vm-run-script clean help bench fuzz stress check-debug \
	install install-kdir uninstall install-dkms install-dkms-sources \
	uninstall-dkms bench-load bench-xdp bench-xdp-insns deb

all: module user selftests

help:
	@echo 'make demo          install deps, build, show blocking in a guest'
	@echo 'make check         run every test: host, guests on 6.1, 6.12 and 7.2,'
	@echo '                   the packages on a booted Debian 12, demo, install'
	@echo 'make host-tests    the host tests alone: core, prefix sets, cfctl (no VM)'
	@echo 'make check-debug   the guest suite on a debug kernel (KASAN, lockdep,'
	@echo '                   kmemleak, fault injection...); not in make check'
	@echo 'make deps          install the Debian packages needed'
	@echo 'make               build cfilter.ko, cfctl and the selftests'
	@echo '  make module, make user, make bpf, make selftests: one of them'
	@echo 'make kernel        fetch and unpack the guest kernel (KERNEL=)'
	@echo 'make vm-run SCRIPT=f.sh   run f.sh as root in the guest'
	@echo '  ... VM_DEBIAN=1  with the Debian root (fail2ban, CrowdSec) at /debian'
	@echo '  ... KERNEL=6.12  with make, make vm-run, make demo: for Debian 13'"'"'s'
	@echo '                   kernel instead of Debian 12'"'"'s (KERNEL=6.1);'
	@echo '  ... KERNEL=7.2   for forky'"'"'s, Debian'"'"'s newest line'
	@echo 'make bench         time the filter core against its baselines, and the miss path'
	@echo '                   with each prefilter design in front of it (host)'
	@echo 'make fuzz          fuzz the filter core, the prefix sets and the CrowdSec reader (FUZZ_SECONDS=600)'
	@echo 'make stress        lock-free readers vs a churning writer (host)'
	@echo 'make bench-load    cfctl load vs ipset restore, nft -f, a BPF hash map (guest)'
	@echo 'make bench-xdp     XDP ns/packet: cfilter vs BPF hash, LPM, Bloom (guest)'
	@echo 'make bench-xdp-insns  the same programs in instructions per packet (guest)'
	@echo 'make install [DESTDIR= PREFIX=]   cfctl, man page, completion, unit, module'
	@echo 'make uninstall     remove what make install put'
	@echo 'make install-dkms  module sources for DKMS (VERSION=x: another name)'
	@echo '  ... install-dkms-sources: the sources alone (as the package does)'
	@echo 'make uninstall-dkms   remove them from DKMS'
	@echo 'make deb           Debian packages cfilter and cfilter-dkms, into dist/'
	@echo 'make KDIR=/lib/modules/$$(uname -r)/build module'
	@echo 'make clean         remove what make built (not .cache/)'

deps:
	scripts/deps.sh

kernel: .cache/kernel-$(KERNEL).mk

module: $(if $(filter-out $(CURDIR),$(MODULE_DIR)),module-sources)
	@echo '$(TOOLCHAIN)' | cmp -s - $(TOOLCHAIN_RECORD) || { \
		cd $(MODULE_DIR) && rm -rf $(MODULE_OUTPUTS) && \
		echo '$(TOOLCHAIN)' >$(TOOLCHAIN_RECORD); }
	+cd $(MODULE_DIR) && BTF_SOURCE='$(if $(BTF_SOURCE),$(abspath $(BTF_SOURCE)))' \
		sh btf/build-module.sh $(abspath $(KDIR)) CFILTER_VERSION=$(VERSION) $(KBUILD_ARGS)

module-sources:
	@mkdir -p $(MODULE_DIR)
	@for f in $(MODULE_SRCS); do \
		cmp -s $$f $(MODULE_DIR)/$$f || \
			install -D -m 644 $$f $(MODULE_DIR)/$$f || exit; \
	done
	@cd $(MODULE_DIR) && for f in $$(find core kmod include btf -name '*.[ch]' -o -name '*.sh'); do \
		[ -f $(CURDIR)/$$f ] || rm $$f || exit; \
	done

bpf:
	$(MAKE) -C bpf

user: bpf
	$(MAKE) -C user

selftests: bpf
	$(MAKE) -C tests/selftests

host-tests:
	$(MAKE) -C tests/host run
	$(MAKE) -C tests/host cfctl-check VALGRIND=valgrind
	tests/host/test_completion.sh

bench:
	$(MAKE) -C bench run mem-results

FUZZ_SECONDS ?= 600
fuzz:
	$(MAKE) -C tests/fuzz run FUZZ_SECONDS=$(FUZZ_SECONDS)

# The full stress run, then the mutant without the version protocol, which
# must miss keys (proof that the stress test can see the race).
stress:
	$(MAKE) -C tests/host stress stress-mutant

# Time filling the filter by cfctl load vs one cfctl add per entry vs a
# BPF hash map (guest; writes bench/results/load.txt).
bench-load:
	scripts/bench/bench-load.sh

# ns per packet of the XDP program vs the same parser on BPF maps, exact
# addresses and geo prefixes (guest; writes bench/results/xdp.txt).
bench-xdp:
	scripts/bench/bench-xdp.sh

# The same programs in guest instructions per packet, counted by a QEMU
# plugin: figures the host's load cannot move (writes
# bench/results/xdp-insns.txt).
bench-xdp-insns:
	scripts/bench/bench-xdp-insns.sh

# make install: cfctl with its man page and bash completion, cfilter.service
# with its helper and example configuration, fail2ban's cfilter action, and
# cfilter.ko, built for the running kernel (make install KDIR=... for
# another), into /lib/modules/<that kernel>/updates. cfctl embeds the XDP
# program: there is no object file to install. DESTDIR stages the whole tree; PREFIX places all but the
# module. make uninstall removes what the install's manifest lists.
PREFIX ?= /usr/local
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
LIBEXECDIR ?= $(PREFIX)/libexec
UNITDIR ?= $(PREFIX)/lib/systemd/system
DOCDIR ?= $(PREFIX)/share/doc/cfilter
# fail2ban reads its actions from /etc/fail2ban only, whatever the PREFIX.
FAIL2BAN_ACTIONDIR ?= /etc/fail2ban/action.d
INSTALL_ENV = DESTDIR='$(DESTDIR)' PREFIX='$(PREFIX)' SBINDIR='$(SBINDIR)' \
	MANDIR='$(MANDIR)' BASHCOMPDIR='$(BASHCOMPDIR)' \
	LIBEXECDIR='$(LIBEXECDIR)' UNITDIR='$(UNITDIR)' DOCDIR='$(DOCDIR)' \
	FAIL2BAN_ACTIONDIR='$(FAIL2BAN_ACTIONDIR)'
# Signing needs the kernel's private key, which only its builder has:
# kbuild would fail to sign and install the module unsigned anyway.
MODULES_INSTALL = $(MAKE) -C $(KDIR) M=$(MODULE_DIR) $(KBUILD_ARGS) \
	INSTALL_MOD_PATH='$(DESTDIR)' INSTALL_MOD_DIR=updates \
	CONFIG_MODULE_SIG_ALL= modules_install

install: install-kdir module user
	@$(INSTALL_ENV) packaging/install.sh install $(MODULE_DIR)/cfilter.ko $(MODULES_INSTALL)

install-kdir:
	@test -f $(KDIR)/Makefile || { \
		echo 'make install: no kernel build tree at $(KDIR): install the running kernel'"'"'s headers (apt-get install linux-headers-$(shell uname -r)), or name a tree: make install KDIR=/path/to/build' >&2; \
		exit 2; }

uninstall:
	@$(INSTALL_ENV) packaging/install.sh uninstall

# The module's sources and dkms.conf, for DKMS to rebuild cfilter.ko for
# every kernel installed. VERSION names the release (debian/changelog's).
# btf/ gives the module BTF where the kernel's headers lack what kbuild
# needs for it: its sources and scripts (these keep their execute bit), not
# what it builds.
DKMS_DIR = $(DESTDIR)/usr/src/cfilter-$(VERSION)
DKMS_SRCS = $(MODULE_SRCS) $(wildcard btf/Makefile btf/*.[ch] btf/*.sh)

# The sources alone: the Debian package's dh_dkms installs dkms.conf itself.
install-dkms-sources:
	@test -n '$(VERSION)' || { echo 'make $@: VERSION= must name the release' >&2; exit 2; }
	rm -rf '$(DKMS_DIR)'
	@for f in $(DKMS_SRCS); do \
		mode=644; [ -x $$f ] && mode=755; \
		install -D -m $$mode $$f '$(DKMS_DIR)'/$$f || exit; \
	done

install-dkms: install-dkms-sources
	sed 's/#MODULE_VERSION#/$(VERSION)/' packaging/dkms.conf >'$(DKMS_DIR)/dkms.conf'
	@echo 'install-dkms: now run: dkms install cfilter/$(VERSION)'

uninstall-dkms:
	@test -n '$(VERSION)' || { echo 'make uninstall-dkms: VERSION= must name the release' >&2; exit 2; }
	rm -rf '$(DKMS_DIR)'

# Debian packages (debian/) built in a copy of the tree's tracked files,
# written to dist/.
deb:
	scripts/deb/deb.sh

# Builds what the guest boots first: the module for KERNEL, cfctl and the
# selftests, each only as far as it changed.
vm-run: vm-run-script module user selftests
	scripts/vm/vm-run.sh $(SCRIPT)

vm-run-script:
	@test -n "$(SCRIPT)" || { echo 'usage: make vm-run SCRIPT=path/to/script.sh [KERNEL=6.12] [VM_DEBIAN=1]' >&2; exit 2; }

check:
	scripts/check/check.sh

# The guest suite on a 6.12 kernel built with every checker, failing on any
# kernel report (scripts/check/check-debug.sh); the first run builds the kernel.
check-debug:
	scripts/check/check-debug.sh

demo:
	scripts/demo/demo.sh

clean:
	$(MAKE) -C bpf clean
	$(MAKE) -C user clean
	$(MAKE) -C tests/host clean
	$(MAKE) -C tests/selftests clean
	$(MAKE) -C tests/fuzz clean
	$(MAKE) -C bench clean
	$(MAKE) -C bench/xdp clean
	$(MAKE) -C bench/qemu clean
	rm -rf $(MODULE_OUTPUTS) .cache/build-* dist
