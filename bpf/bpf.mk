# SPDX-License-Identifier: GPL-2.0
# How every BPF program of the tree is built, and its libbpf skeleton made.
# A Makefile sets TOP (the project root, relative to it), includes this,
# and lists each program's headers as extra prerequisites of its .bpf.o.

CLANG ?= clang
BPFTOOL ?= bpftool
# asm/ headers live in the multiarch folder, which -target bpf does not search.
MULTIARCH := $(shell gcc -dumpmachine)

BPF_CFLAGS := -O2 -g -target bpf -Wall -Werror \
	-I$(TOP)/include/uapi -I$(TOP)/bpf -I/usr/include/$(MULTIARCH)

%.bpf.o: %.bpf.c
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

# foo.bpf.o gives struct foo_bpf; through a temporary file, so that a
# failure leaves no half-written header.
%.skel.h: %.bpf.o
	$(BPFTOOL) gen skeleton $< name $*_bpf > $@.tmp
	mv $@.tmp $@
