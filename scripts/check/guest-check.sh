#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of `make check`: the kselftest directory's own runner. The
# harness's 30 s per test is a timed test under TCG on a busy host (CI's
# 6.12 guest ran out of it in test_batch's million adds): 120 s at least.
export SELFTESTS_HARNESS_TIMEOUT=120
cd /opt/cfilter/selftests && exec ./run.sh
