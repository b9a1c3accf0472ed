#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of `make check`: the kselftest directory's own runner.
cd /opt/cfilter/selftests && exec ./run.sh
