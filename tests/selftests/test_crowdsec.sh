#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Debian's CrowdSec drives cfilter: its local API (LAPI, with its own
# SQLite database) takes decisions from cscli, and Debian's
# crowdsec-custom-bouncer feeds them with feed_via_stdin to `cfctl
# crowdsec` through the wrapper packaging/crowdsec ships. A decision is a
# holding of source crowdsec timed to its duration, and drops the
# namespace's pings within seconds; deleting it, or its expiry, lets them
# through again, also when the bouncer was killed meanwhile: the kernel
# keeps the deadline. An operator's ban of the same address outlives the
# bouncer's startup and the decision. Then `cfctl crowdsec` alone, on lines
# a bouncer would not write.

. "$(dirname "$0")/lib.sh"

KEY=cfiltertestbouncerkey0123456789a
BOUNCER_CONF=/etc/crowdsec/bouncers/cfilter.yaml
# The bouncer's own log (its log_dir), in the Debian root.
BOUNCER_LOG=/var/log/crowdsec-custom-bouncer.log
WRAPPER=/usr/local/libexec/cfilter/cfilter-crowdsec
BOUNCER_PID=
# The duration of the decision the kernel alone ends: long enough to
# outlive cscli, the bouncer's poll and its kill under TCG on a busy host
# (15 s was not, once, with other guests running beside this one).
KILL_TTL=30

cs_cleanup()
{
	debian_stop_all
	lib_cleanup
}
trap cs_cleanup EXIT

# Does the bouncer run, and the wrapper's command under it?
bouncer_feeding()
{
	debian_pid 'crowdsec-custom-bouncer *' >/dev/null &&
	debian_pid '/usr/sbin/cfctl crowdsec ' >/dev/null
}

# What the package's postinst does, less the Central API (no network
# here): the offline hub, SQLite's write-ahead log (else a cscli write can
# meet "database is locked" while the bouncer reads), a machine for cscli,
# no daemon.
lapi_setup()
{
	d=$DEBIAN_ROOT
	sed -e 's/^  daemonize: true/  daemonize: false/' \
	    -e 's|^  db_path: /var/lib/crowdsec/data/crowdsec.db|&\n  use_wal: true|' \
	    -e '/online_client:/d' -e '/online_api_credentials/d' \
	    "$d/etc/crowdsec/config.yaml" >"$d/etc/crowdsec/config.yaml.new" &&
	mv "$d/etc/crowdsec/config.yaml.new" "$d/etc/crowdsec/config.yaml" &&
	mkdir -p "$d/var/lib/crowdsec/data" "$d/var/lib/crowdsec/hub" &&
	for item in blockers collections parsers postoverflows scenarios \
		    .index.json; do
		ln -sf "/usr/share/crowdsec/hub/$item" "$d/var/lib/crowdsec/hub/"
	done &&
	: >"$d/etc/crowdsec/local_api_credentials.yaml" &&
	in_debian cscli --error machines add --force cfilter-test \
		--password cfiltertestmachinepassword0123456
}

bouncer_setup()
{
	d=$DEBIAN_ROOT
	mkdir -p "$d$(dirname "$WRAPPER")" &&
	sed 's|@SBINDIR@|/usr/sbin|' crowdsec-cfilter-crowdsec.in >"$d$WRAPPER" &&
	chmod 755 "$d$WRAPPER" &&
	sed -e "s|@LIBEXECDIR@/cfilter/cfilter-crowdsec|$WRAPPER|" \
	    -e 's|^api_key: .*|api_key: '"$KEY"'|' \
	    -e 's|^update_frequency: .*|update_frequency: 1s|' \
	    -e 's|^daemonize: .*|daemonize: false|' \
	    crowdsec-bouncer.yaml.in >"$d$BOUNCER_CONF" &&
	in_debian cscli bouncers add cfilter -k "$KEY"
}

bouncer_start()
{
	debian_start "$tap_tmp/bouncer.log" crowdsec-custom-bouncer \
		-c "$BOUNCER_CONF"
	BOUNCER_PID=$!
}

# Has the bouncer gone, and cfctl crowdsec with it (its stdin closed)?
bouncer_gone()
{
	! debian_pid 'crowdsec-custom-bouncer *' >/dev/null &&
	! debian_pid '/usr/sbin/cfctl crowdsec ' >/dev/null
}

blocked()
{
	"$CFCTL" test "$@" >/dev/null 2>&1
}

# How many decisions the bouncer has taken from the LAPI's stream, by its
# own log: a line per pull.
bouncer_received()
{
	sed -n "s/.*adding '\([0-9]*\)' decisions.*/\1/p" \
		"$DEBIAN_ROOT$BOUNCER_LOG" 2>/dev/null |
		awk '{ n += $1 } END { print n + 0 }'
}

# decide CSCLI-ARGS: cscli decisions add CSCLI-ARGS, remembered for
# arrives(), with what the bouncer had received before it, and when it was
# made (now_cs) in decided_at.
decide()
{
	decided=$*
	received=$(bouncer_received)
	within 10 in_debian cscli decisions add "$@" &&
	decided_at=$(now_cs)
}

# arrives SECS TEST-ARGS: the decision of the last decide() is in cfilter
# (cfctl test TEST-ARGS) within SECS seconds. CrowdSec 1.4's LAPI, Debian
# 12's, can fail to stream a new decision to a running bouncer: a pull that
# started after the decision's creation time but read before its commit
# moves the bouncer's last pull past it for good (later LAPIs keep an id
# cursor instead). When the bouncer's log shows that it received nothing,
# the loss is CrowdSec's: the decision is made again, at most twice, and
# noted (see losses()). Any other miss is cfilter's.
arrives()
{
	_secs=$1
	shift
	_tries=0
	until within "$_secs" blocked "$@"; do
		[ "$(bouncer_received)" -eq "$received" ] || return 1
		_tries=$((_tries + 1))
		[ "$_tries" -le 2 ] || return 1
		echo "$decided" >>"$tap_tmp/lost"
		# shellcheck disable=SC2086 # the arguments decide() was given
		decide $decided || return 1
	done
}

# Says which decisions arrives() had to make again.
losses()
{
	[ -s "$tap_tmp/lost" ] || return 0
	diag "CrowdSec's LAPI streamed none of these to the running bouncer, made again:"
	sed 's/^/#   cscli decisions add /' "$tap_tmp/lost"
	rm -f "$tap_tmp/lost"
}

decision_cycle()
{
	what=$1 value=$2 entry=$3 host=$4
	expect "$what: ping passes before any decision" 0 -- \
		ping_from_ns_retry "$host"
	check "$what: cscli decisions add --$what $value" \
		decide "--$what" "$value" --duration 5m
	expect "$what: in cfilter as source crowdsec within 15 s" 0 -- \
		arrives 15 -s crowdsec $entry
	losses
	expect "$what: held for at most the decision's 300 s" 0 -- \
		held_for crowdsec "${entry#src }" 300
	expect "$what: not held by the default source" 1 -- \
		"$CFCTL" test -s default $entry
	expect "$what: its pings are dropped" nonzero -- ping_from_ns "$host"
	check "$what: cscli decisions delete --$what $value" \
		within 10 in_debian cscli decisions delete "--$what" "$value"
	expect "$what: out of cfilter within 15 s" 0 -- \
		within 15 not blocked $entry
	expect "$what: its pings pass again" 0 -- ping_from_ns_retry "$host"
}

# feed NAME STATUS STDIN-TEXT: one case of cfctl crowdsec on its own.
feed()
{
	printf '%s\n' "$3" >"$tap_tmp/feed"
	expect "$1" "$2" -e "lines:" -- sh -c '"$0" crowdsec <"$1"' \
		"$CFCTL" "$tap_tmp/feed"
}

add_line()
{
	echo "{\"duration\":\"1h\",\"origin\":\"cscli\",\"scenario\":\"test\",\"scope\":\"$2\",\"type\":\"${3:-ban}\",\"value\":\"$1\",\"action\":\"add\"}"
}

del_line()
{
	echo "{\"duration\":\"-1s\",\"origin\":\"cscli\",\"scenario\":\"test\",\"scope\":\"$2\",\"type\":\"ban\",\"value\":\"$1\",\"action\":\"del\"}"
}

tap_begin
load_module || tap_skip_all "cannot load $CFILTER_KO"
[ -n "${DEBIAN_ROOT:-}" ] ||
	tap_skip_all "no Debian root: run the guest with VM_DEBIAN=1"
[ -f crowdsec-cfilter-crowdsec.in ] ||
	tap_skip_all "crowdsec-cfilter-crowdsec.in not built: make -C tests/selftests"

check "setup: cfctl clear" "$CFCTL" clear
check "setup: $NS and $VETH" veth_setup
check "setup: attach to $VETH" "$CFCTL" attach "$VETH"
check "setup: CrowdSec's LAPI configured" lapi_setup
debian_start "$tap_tmp/lapi.log" crowdsec -no-cs
expect "the LAPI answers within 90 s" 0 -- \
	within 90 in_debian cscli lapi status
check "setup: the bouncer registered and configured" bouncer_setup
bouncer_start

decision_cycle ip "$PEER4" "$PEER4" "$HOST4"
decision_cycle range 2001:db8::/64 "src 2001:db8::/64" "$HOST6"

check "expiry: cscli decisions add --ip $PEER4 --duration 5s" \
	decide --ip "$PEER4" --duration 5s
expect "expiry: in cfilter within 15 s" 0 -- arrives 15 "$PEER4"
losses
expect "expiry: out of cfilter within 20 s of the decision" 0 -- \
	within 20 not blocked "$PEER4"
expect "the bouncer still runs, and cfctl crowdsec under it" 0 -- \
	bouncer_feeding

check "kill: cscli decisions add --ip $PEER4 --duration ${KILL_TTL}s" \
	decide --ip "$PEER4" --duration "${KILL_TTL}s"
expect "kill: in cfilter within 20 s" 0 -- \
	arrives 20 -s crowdsec "$PEER4"
losses
check "kill: kill -9 the bouncer" kill -9 "$BOUNCER_PID"
expect "kill: the bouncer and its cfctl crowdsec are gone within 5 s" 0 -- \
	within 5 bouncer_gone
expect "kill: $PEER4's pings are still dropped" nonzero -- \
	ping_from_ns "$HOST4"
# The ban ends at the decision's own deadline: its duration, rounded up to
# a second, from when the bouncer saw it, then the next pass of the
# module's expiry work; 5 s of slack cover those and an emulated guest's
# delays (2 s did not, once). The bouncer is dead: only the kernel can.
expect "kill: the kernel lifts the ban within ${KILL_TTL} s + 5 s of the decision" 0 -- \
	before $((decided_at + (KILL_TTL + 5) * 100)) not blocked "$PEER4"
expect "kill: $PEER4's pings pass again" 0 -- ping_from_ns_retry "$HOST4"

# The bouncer's first poll brings every decision made while it was down.
check "restart: $PEER4 banned by the operator" "$CFCTL" add "$PEER4"
check "restart: cscli decisions add --ip $PEER4, the bouncer down" \
	within 10 in_debian cscli decisions add --ip "$PEER4" --duration 5m
bouncer_start
expect "restart: the decision in cfilter within 15 s" 0 -- \
	within 15 blocked -s crowdsec "$PEER4"
expect "restart: the operator's ban outlives the bouncer's startup" 0 -- \
	"$CFCTL" test -s default "$PEER4"
check "restart: cscli decisions delete --ip $PEER4" \
	within 10 in_debian cscli decisions delete --ip "$PEER4"
expect "restart: crowdsec lets go of $PEER4 within 15 s" 0 -- \
	within 15 not blocked -s crowdsec "$PEER4"
expect "restart: the operator's ban outlives the decision" 0 -- \
	"$CFCTL" test -s default "$PEER4"
expect "restart: $PEER4's pings are still dropped" nonzero -- \
	ping_from_ns "$HOST4"
check "restart: the operator unbans $PEER4" "$CFCTL" del "$PEER4"
expect "restart: $PEER4's pings pass again" 0 -- ping_from_ns_retry "$HOST4"

debian_stop_all
expect "nothing runs in the Debian root any more" 0 -- debian_stop_all
"$CFCTL" clear >/dev/null
feed "feed: add, del, add of one address: applied in order" 0 \
	"$(add_line 192.0.2.50 Ip; del_line 192.0.2.50 Ip; add_line 192.0.2.50 Ip)"
expect "feed: 192.0.2.50 ends blocked" 0 -- "$CFCTL" test 192.0.2.50
feed "feed: bad lines are skipped, the good ones applied" 0 \
	"$(echo 'not json'; echo '{"action":"add"}'; add_line 192.0.2.51 Ip
	   add_line 192.0.2.52 Ip captcha; add_line FR Country
	   add_line 192.0.2.999 Ip; add_line 198.51.100.0/24 Range)"
expect "feed: the good add is in" 0 -- "$CFCTL" test 192.0.2.51
expect "feed: held by crowdsec for the decision's hour" 0 -- \
	held_for crowdsec 192.0.2.51 3600
expect "feed: a captcha is not a ban" 1 -- "$CFCTL" test 192.0.2.52
expect "feed: the range is in" 0 -- "$CFCTL" test --exact src 198.51.100.0/24
expect "feed: nothing else is" 0 -- sh -c \
	'test "$("$0" list | wc -l)" -eq 3' "$CFCTL"
expect "feed: bad lines are named by number" 0 \
	-e "line 1: not a JSON object: skipped" -- \
	sh -c '"$0" crowdsec <"$1"' "$CFCTL" "$tap_tmp/feed"
expect "feed: without the module's write access: exit 3" 3 -- \
	sh -c 'echo | ./as_nobody "$0" crowdsec' "$CFCTL"
"$CFCTL" clear >/dev/null

if [ "$tap_failed" -ne 0 ]; then
	diag_file "LAPI" "$tap_tmp/lapi.log"
	diag_file "bouncer" "$tap_tmp/bouncer.log"
	diag_file "bouncer's log" "$DEBIAN_ROOT$BOUNCER_LOG"
fi
tap_end
