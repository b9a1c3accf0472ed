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
# bouncer's startup and the decision. What cfctl says reaches syslog (the
# bouncer gives it no stderr); a range typed with host bits bans its
# network; a captcha is skipped, and said so. The module goes away and
# comes back under the running bouncer (rmmod, then insmod; the bouncer
# started without it; cfilter-boot stop and start): rmmod succeeds, and
# the crowdsec source then converges to the LAPI's bans. Then `cfctl
# crowdsec` alone, on lines a bouncer would not write.

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
# What busybox syslogd, on the guest's /dev/log, writes.
SYSLOG=$tap_tmp/syslog
SYSLOGD_PID=
# cfilter-boot's files, for the stop and start of the boot section.
export CFILTER_INTERFACES="$tap_tmp/interfaces"
export CFILTER_BLOCKLIST="$tap_tmp/blocklist"
export CFILTER_ATTACHED="$tap_tmp/attached"
# How long the crowdsec source may take to converge after the module
# returns: cfctl crowdsec looks for it at least every 5 s (cfctl(8)); the
# rest is for an emulated guest on a busy host, and for the check itself.
CONVERGE=20

cs_cleanup()
{
	debian_stop_all
	[ -z "$SYSLOGD_PID" ] || kill "$SYSLOGD_PID" 2>/dev/null
	rm -f /dev/log
	lib_cleanup
}
trap cs_cleanup EXIT

# Does the bouncer run, and the wrapper's command under it?
bouncer_feeding()
{
	debian_pid 'crowdsec-custom-bouncer *' >/dev/null &&
	debian_pid '/usr/sbin/cfctl crowdsec *' >/dev/null
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
	! debian_pid '/usr/sbin/cfctl crowdsec *' >/dev/null
}

# The guest's syslog: busybox syslogd on /dev/log, which the Debian root
# shares, every message to $SYSLOG.
syslog_start()
{
	rm -f /dev/log
	busybox syslogd -n -S -O "$SYSLOG" &
	SYSLOGD_PID=$!
	within 5 test -S /dev/log
}

# logged TEXT...: a line of syslog tagged cfilter-crowdsec has every TEXT.
logged()
{
	_lines=$(grep -F 'cfilter-crowdsec' "$SYSLOG") || return 1
	for _text; do
		_lines=$(printf '%s\n' "$_lines" | grep -F -- "$_text") ||
			return 1
	done
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

# The decisions the bouncer has passed on as deleted, likewise.
bouncer_deleted()
{
	sed -n "s/.*deleting '\([0-9]*\)' decisions.*/\1/p" \
		"$DEBIAN_ROOT$BOUNCER_LOG" 2>/dev/null |
		awk '{ n += $1 } END { print n + 0 }'
}

# Has the bouncer received a decision since the last decide()?
received_more()
{
	[ "$(bouncer_received)" -gt "$received" ]
}

# Has the bouncer passed on a deletion since $deleted was read?
deleted_more()
{
	[ "$(bouncer_deleted)" -gt "$deleted" ]
}

# Has the bouncer never had to start its program again? With total_retries
# -1 it does so at once, in a loop, each time cfctl crowdsec exits.
no_restarts()
{
	! grep -q 'Binary exited' "$DEBIAN_ROOT$BOUNCER_LOG"
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

# settles SECS CMD...: CMD succeeds within SECS seconds of the last
# decide(). CrowdSec 1.4's LAPI, Debian 12's, can fail to stream a new
# decision to a running bouncer: a pull that started after the decision's
# creation time but read before its commit moves the bouncer's last pull
# past it for good (later LAPIs keep an id cursor instead). When the
# bouncer's log shows that it received nothing, the loss is CrowdSec's: the
# decision is made again, at most twice, and noted (see losses()). Any
# other miss is cfilter's.
settles()
{
	_secs=$1
	shift
	_tries=0
	until within "$_secs" "$@"; do
		[ "$(bouncer_received)" -eq "$received" ] || return 1
		_tries=$((_tries + 1))
		[ "$_tries" -le 2 ] || return 1
		echo "$decided" >>"$tap_tmp/lost"
		# shellcheck disable=SC2086 # the arguments decide() was given
		decide $decided || return 1
	done
}

# arrives SECS TEST-ARGS: the decision of the last decide() is in cfilter
# (cfctl test TEST-ARGS) within SECS seconds.
arrives()
{
	_secs=$1
	shift
	settles "$_secs" blocked "$@"
}

# Does the crowdsec source hold exactly the LAPI's active bans, a range as
# the network CrowdSec means (its host bits masked)? At least one.
same_decisions()
{
	"$CFCTL" list -s crowdsec >"$tap_tmp/held" &&
	in_debian cscli decisions list -o raw >"$tap_tmp/lapi" &&
	in_debian python3 - "$tap_tmp/lapi" "$tap_tmp/held" <<-'EOF'
	import csv, ipaddress, sys
	bans = set()
	for row in csv.reader(open(sys.argv[1])):
	    # id,source,ip (Scope:value),reason,action (type),...,simulated
	    if len(row) < 10 or row[0] == "id":
	        continue
	    scope, _, value = row[2].partition(":")
	    if row[4] == "ban" and row[9] == "false" and \
	       scope.lower() in ("ip", "range"):
	        bans.add(ipaddress.ip_network(value, strict=False))
	held = {ipaddress.ip_network(line.split()[-1])
	        for line in open(sys.argv[2]) if line.strip()}
	if not bans or bans != held:
	    print("LAPI's bans:", sorted(map(str, bans)), file=sys.stderr)
	    print("crowdsec's holdings:", sorted(map(str, held)), file=sys.stderr)
	    sys.exit(1)
	EOF
}

# converges NAME: one case, the crowdsec source is the LAPI's bans within
# CONVERGE seconds of now, with the time it took as a diagnostic.
converges()
{
	_from=$(now_cs)
	if within "$CONVERGE" same_decisions; then
		tap_ok "$1 within $CONVERGE s"
		_took=$(($(now_cs) - _from))
		diag "converged $((_took / 100)).$((_took / 10 % 10)) s after the module's return"
		return
	fi
	expect "$1 within $CONVERGE s" 0 -- same_decisions
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

# feed NAME STATUS STDIN-TEXT [OPTIONS]: one case of cfctl crowdsec
# OPTIONS on its own.
feed()
{
	_fname=$1 _fstatus=$2
	printf '%s\n' "$3" >"$tap_tmp/feed"
	shift 3
	expect "$_fname" "$_fstatus" -e "lines:" -- \
		sh -c 'f=$1; shift; "$0" crowdsec "$@" <"$f"' \
		"$CFCTL" "$tap_tmp/feed" "$@"
}

# add_line VALUE SCOPE [TYPE]
add_line()
{
	echo "{\"duration\":\"1h\",\"origin\":\"cscli\",\"scenario\":\"test\",\"scope\":\"$2\",\"type\":\"${3:-ban}\",\"value\":\"$1\",\"action\":\"add\"}"
}

# del_line VALUE SCOPE [TYPE]
del_line()
{
	echo "{\"duration\":\"-1s\",\"origin\":\"cscli\",\"scenario\":\"test\",\"scope\":\"$2\",\"type\":\"${3:-ban}\",\"value\":\"$1\",\"action\":\"del\"}"
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
check "setup: busybox syslogd on /dev/log" syslog_start
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

# A range typed with host bits: CrowdSec stores it as typed, and means the
# network. cfctl says so, and the bouncer gives it no stderr: syslog.
check "host bits: cscli decisions add --range 198.51.100.7/24" \
	decide --range 198.51.100.7/24 --duration 10m
expect "host bits: the network 198.51.100.0/24 in cfilter within 15 s" 0 -- \
	arrives 15 -s crowdsec --exact src 198.51.100.0/24
losses
expect "log: cfctl's word on 198.51.100.7/24 in syslog, tagged cfilter-crowdsec" 0 -- \
	within 10 logged 198.51.100.7/24 198.51.100.0/24

# A captcha is no ban by default (the wrapper's --types ban), and cfctl
# says it skipped one.
check "types: cscli decisions add --ip $PEER4 --type captcha" \
	decide --ip "$PEER4" --type captcha --duration 10m
expect "types: the captcha's skip in syslog within 15 s" 0 -- \
	settles 15 logged captcha "$PEER4" skipped
losses
expect "types: $PEER4 not in cfilter" 1 -- "$CFCTL" test "$PEER4"

# The module goes away under the running bouncer: rmmod succeeds (cfctl
# crowdsec holds the device only while it applies a burst), decisions
# come meanwhile, and after insmod the source is the LAPI's bans again.
check "away: cscli decisions add --ip $PEER4 --duration 10m" \
	decide --ip "$PEER4" --duration 10m
expect "away: in cfilter within 15 s" 0 -- arrives 15 -s crowdsec "$PEER4"
losses
check "away: detach from $VETH" "$CFCTL" detach "$VETH"
check "away: cscli decisions add --ip 192.0.2.66, then rmmod at once" \
	decide --ip 192.0.2.66 --duration 10m
check "away: rmmod while the bouncer runs and feeds" unload_module
# Else a decision CrowdSec's LAPI failed to stream (see settles()) would
# count against the convergence below.
expect "away: the bouncer has 192.0.2.66 within 15 s" 0 -- \
	settles 15 received_more
losses
check "away: cscli decisions add --range 2001:db8:77::/48" \
	decide --range 2001:db8:77::/48 --duration 10m
expect "away: the bouncer has it within 15 s" 0 -- settles 15 received_more
losses
deleted=$(bouncer_deleted)
check "away: cscli decisions delete --ip $PEER4" \
	within 10 in_debian cscli decisions delete --ip "$PEER4"
expect "away: the bouncer has the deletion within 15 s" 0 -- \
	within 15 deleted_more
expect "away: the bouncer never had to start cfctl crowdsec again" 0 -- \
	no_restarts
expect "away: cfctl said the module was away, in syslog" 0 -- \
	logged "not loaded"
check "away: insmod" load_module
converges "away: the crowdsec source is the LAPI's bans"
check "away: attach to $VETH" "$CFCTL" attach "$VETH"
expect "away: $PEER4's pings pass" 0 -- ping_from_ns_retry "$HOST4"

# The bouncer starts while the module is away: cfctl crowdsec waits for it
# with the bouncer's whole list, instead of exiting into the bouncer's
# loop of restarts (which would not send the list again).
check "absent: kill the bouncer" kill "$BOUNCER_PID"
expect "absent: the bouncer and its cfctl crowdsec are gone within 5 s" 0 -- \
	within 5 bouncer_gone
check "absent: detach from $VETH" "$CFCTL" detach "$VETH"
check "absent: rmmod" unload_module
# The new bouncer's first poll (the LAPI's list) is logged before the
# decision is made: counted after it, it passed for the decision's
# arrival, and a decision the LAPI then failed to stream (see settles())
# went unseen and was never made again.
received=$(bouncer_received)
bouncer_start
expect "absent: the bouncer has the LAPI's list within 15 s" 0 -- \
	within 15 received_more
check "absent: cscli decisions add --ip 192.0.2.88" \
	decide --ip 192.0.2.88 --duration 10m
expect "absent: the bouncer has it within 15 s" 0 -- settles 15 received_more
losses
expect "absent: the bouncer never had to start cfctl crowdsec again" 0 -- \
	no_restarts
expect "absent: cfctl crowdsec runs, waiting" 0 -- bouncer_feeding
check "absent: insmod" load_module
converges "absent: the crowdsec source is the LAPI's bans"

# The service's stop and start around an unload, as an operator would:
# save and detach, rmmod (the bouncer running), insmod, restore and
# attach. A decision made meanwhile is there after the start.
echo "$VETH" >"$CFILTER_INTERFACES"
check "boot: cfilter-boot start attaches to $VETH" sh ./cfilter-boot start
check "boot: cfilter-boot stop saves and detaches" sh ./cfilter-boot stop
check "boot: rmmod while the bouncer runs" unload_module
check "boot: cscli decisions add --ip $PEER4 --duration 10m, the module away" \
	decide --ip "$PEER4" --duration 10m
expect "boot: the bouncer has it within 15 s" 0 -- settles 15 received_more
losses
check "boot: insmod, then cfilter-boot start" \
	sh -c 'insmod "$0" && sh ./cfilter-boot start' "$CFILTER_KO"
converges "boot: the crowdsec source is the LAPI's bans"
expect "boot: $PEER4's pings are dropped" nonzero -- ping_from_ns "$HOST4"
check "boot: cfilter-boot stop" sh ./cfilter-boot stop
expect "the bouncer never had to start cfctl crowdsec again" 0 -- no_restarts

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
expect "feed: the captcha's skip is said, with its address" 0 \
	-e "line 4: captcha decision on 192.0.2.52 skipped" -- \
	sh -c '"$0" crowdsec <"$1"' "$CFCTL" "$tap_tmp/feed"
"$CFCTL" clear >/dev/null
feed "feed: a range with host bits" 0 "$(add_line 198.51.100.7/24 Range)"
expect "feed: bans its network" 0 -- \
	"$CFCTL" test -s crowdsec --exact src 198.51.100.0/24
expect "feed: and says so" 0 -e "198.51.100.7/24" -- \
	sh -c '"$0" crowdsec <"$1"' "$CFCTL" "$tap_tmp/feed"
feed "feed: its deletion as typed" 0 "$(del_line 198.51.100.7/24 Range)"
expect "feed: removes the network" 1 -- "$CFCTL" test 198.51.100.0/24
feed "feed: --types ban,captcha" 0 "$(add_line 192.0.2.52 Ip captcha)" \
	--types ban,captcha
expect "feed: bans a captcha's address" 0 -- "$CFCTL" test -s crowdsec 192.0.2.52
feed "feed: a ban and a captcha of one address, the captcha deleted" 0 \
	"$(add_line 192.0.2.53 Ip; add_line 192.0.2.53 Ip captcha
	   del_line 192.0.2.53 Ip captcha)" --types ban,captcha
expect "feed: the ban holds" 0 -- held_for crowdsec 192.0.2.53 3600
expect "feed: --types with an empty name: usage error" 2 -e "--types" -- \
	"$CFCTL" crowdsec --types ban,
expect "feed: --types with five types: usage error" 2 -e "--types" -- \
	"$CFCTL" crowdsec --types a,b,c,d,e
"$CFCTL" clear >/dev/null
expect "feed: without the module's write access: exit 3" 3 -- \
	sh -c 'echo | ./as_nobody "$0" crowdsec' "$CFCTL"
"$CFCTL" clear >/dev/null

if [ "$tap_failed" -ne 0 ]; then
	diag_file "LAPI" "$tap_tmp/lapi.log"
	diag_file "bouncer" "$tap_tmp/bouncer.log"
	diag_file "bouncer's log" "$DEBIAN_ROOT$BOUNCER_LOG"
	diag_file "syslog" "$SYSLOG"
fi
tap_end
