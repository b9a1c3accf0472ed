#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# CrowdSec across hosts, with Debian's crowdsec and crowdsec-custom-bouncer:
# detection on one machine, enforcement on another. Network namespaces
# stand for them:
#
#   host A ($NS_A)   10.78.0.1, CrowdSec's agent and LAPI: the agent reads
#                    its sshd's auth log with the sshd collection of the
#                    package's offline hub (parsers syslog-logs, sshd-logs,
#                    dateparse-enrich; scenario ssh-bf) and sends its alert
#                    to the LAPI, which listens on 10.78.0.1:8080
#   host B (root)    10.78.0.2 on the link to A, 192.0.2.1 on the link to
#                    the attacker: the bouncer, pointed at A's LAPI, feeds
#                    cfctl crowdsec (the wrapper packaging/crowdsec ships),
#                    and cfilter's program is attached to the attacker's link
#   attacker ($NS)   192.0.2.2, pinging host B
#
# The attacker fails ssh logins on host A (the sshd lines of its auth log)
# and has its pings to host B dropped from then on; deleting the decision
# on A lets them through again.

. "$(dirname "$0")/lib.sh"

NS_A=cfhosta
A_VETH=cfa0		# host B's end of the link to host A
A_PEER=cfa1		# host A's end
A_ADDR=10.78.0.1
B_ADDR=10.78.0.2
LAPI=$A_ADDR:8080
KEY=cfilterfleetbouncerkey0123456789
# Host A's CrowdSec: its configuration, database and logs, apart from the
# files test_crowdsec.sh uses.
A_DIR=/etc/crowdsec/host-a
A_CONF=$A_DIR/config.yaml
A_DATA=/var/lib/crowdsec/host-a
A_LOGS=/var/log/host-a
AUTH_LOG=$A_LOGS/auth.log
BOUNCER_CONF=/etc/crowdsec/bouncers/host-b.yaml
BOUNCER_LOG=/var/log/crowdsec-custom-bouncer.log
WRAPPER=/usr/local/libexec/cfilter/cfilter-crowdsec
# What the package's postinst enables for sshd, from /usr/share/crowdsec/hub.
HUB_ITEMS="collections/crowdsecurity/sshd.yaml
parsers/s00-raw/crowdsecurity/syslog-logs.yaml
parsers/s01-parse/crowdsecurity/sshd-logs.yaml
parsers/s02-enrich/crowdsecurity/dateparse-enrich.yaml
scenarios/crowdsecurity/ssh-bf.yaml"

CROWDSEC_PID=
BOUNCER_PID=

fleet_cleanup()
{
	[ -z "$CROWDSEC_PID" ] || kill "$CROWDSEC_PID" 2>/dev/null
	[ -z "$BOUNCER_PID" ] || kill -CONT "$BOUNCER_PID" 2>/dev/null
	debian_stop_all
	"$IP" link del "$A_VETH" 2>/dev/null
	"$IP" netns del "$NS_A" 2>/dev/null
	lib_cleanup
}
trap fleet_cleanup EXIT

# Host A: its namespace, and the link to host B.
hosts_setup()
{
	"$IP" link del "$A_VETH" 2>/dev/null
	"$IP" netns del "$NS_A" 2>/dev/null
	"$IP" netns add "$NS_A" &&
	"$IP" link add "$A_VETH" type veth peer name "$A_PEER" netns "$NS_A" &&
	"$IP" addr add "$B_ADDR/24" dev "$A_VETH" &&
	"$IP" link set "$A_VETH" up &&
	"$IP" -n "$NS_A" addr add "$A_ADDR/24" dev "$A_PEER" &&
	"$IP" -n "$NS_A" link set "$A_PEER" up &&
	"$IP" -n "$NS_A" link set lo up
}

# Does host B reach host A? The first echo may go while the neighbour
# is resolved.
reaches_a()
{
	ping -c 1 -W 1 "$A_ADDR" || ping -c 1 -W 1 "$A_ADDR"
}

# on_a CMD...: CMD in the Debian root, on host A's network.
on_a()
{
	"$IP" netns exec "$NS_A" chroot "$DEBIAN_ROOT" /usr/bin/env -i \
		PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root "$@"
}

# cscli of host A.
cscli_a()
{
	on_a cscli -c "$A_CONF" "$@"
}

# Host A's CrowdSec: the package's configuration with the LAPI on A's
# address, its own database, log folder and acquisition (the auth log),
# no Central API; the hub as the postinst sets it up, with the sshd items
# enabled; a machine for the agent, which logs in to the LAPI over the
# link like any other.
host_a_setup()
{
	d=$DEBIAN_ROOT
	mkdir -p "$d$A_DIR" "$d$A_DATA" "$d$A_LOGS" "$d/var/lib/crowdsec/hub" \
		"$d/var/lib/crowdsec/data" &&
	sed -e 's/^  daemonize: .*/  daemonize: false/' \
	    -e "s|^  log_dir: .*|  log_dir: $A_LOGS/|" \
	    -e '/^  use_wal:/d' \
	    -e "s|^  db_path: .*|  db_path: $A_DATA/crowdsec.db\\n  use_wal: true|" \
	    -e "s|^  acquisition_path: .*|  acquisition_path: $A_DIR/acquis.yaml|" \
	    -e '/^  acquisition_dir:/d' \
	    -e '/online_client:/d' -e '/online_api_credentials/d' \
	    -e "s|^    credentials_path: .*|    credentials_path: $A_DIR/local_api_credentials.yaml|" \
	    -e "s|^    listen_uri: .*|    listen_uri: $LAPI|" \
	    "$d/etc/crowdsec/config.yaml" >"$d$A_CONF" &&
	printf '%s\n' "filenames:" "  - $AUTH_LOG" "labels:" "  type: syslog" \
		>"$d$A_DIR/acquis.yaml" &&
	: >"$d$AUTH_LOG" &&
	for item in blockers collections parsers postoverflows scenarios \
		    .index.json; do
		ln -sfn "/usr/share/crowdsec/hub/$item" "$d/var/lib/crowdsec/hub/"
	done &&
	cp "$d"/usr/share/crowdsec/data/* "$d/var/lib/crowdsec/data/" &&
	for item in $HUB_ITEMS; do
		# Enabled as /etc/crowdsec/TYPE[/STAGE]/NAME.yaml, the vendor
		# folder left out, as the postinst does.
		link=/etc/crowdsec/$(dirname "$(dirname "$item")")/$(basename "$item")
		mkdir -p "$d$(dirname "$link")" &&
		ln -sfn "/var/lib/crowdsec/hub/$item" "$d$link" || return 1
	done &&
	: >"$d$A_DIR/local_api_credentials.yaml" &&
	cscli_a --error machines add --force host-a --url "http://$LAPI/" \
		--password cfilterfleetmachinepassword01234
}

# Host B's bouncer: the shipped configuration, pointed at host A's LAPI.
host_b_setup()
{
	d=$DEBIAN_ROOT
	mkdir -p "$d$(dirname "$WRAPPER")" &&
	sed 's|@SBINDIR@|/usr/sbin|' crowdsec-cfilter-crowdsec.in >"$d$WRAPPER" &&
	chmod 755 "$d$WRAPPER" &&
	sed -e "s|@LIBEXECDIR@/cfilter/cfilter-crowdsec|$WRAPPER|" \
	    -e "s|^api_url: .*|api_url: http://$LAPI/|" \
	    -e "s|^api_key: .*|api_key: $KEY|" \
	    -e 's|^update_frequency: .*|update_frequency: 1s|' \
	    -e 's|^daemonize: .*|daemonize: false|' \
	    crowdsec-bouncer.yaml.in >"$d$BOUNCER_CONF" &&
	rm -f "$d$BOUNCER_LOG" &&
	cscli_a bouncers add host-b -k "$KEY"
}

# Is host A's CrowdSec up: the LAPI answering the agent's machine?
lapi_up()
{
	cscli_a lapi status
}

# The attacker's try at host A's sshd, as sshd logs it through syslog: a
# burst of logins of users that do not exist, past ssh-bf's capacity (5).
ssh_attack()
{
	_now=$(date '+%b %e %H:%M:%S')
	for _user in admin oracle test guest ubuntu pi postgres; do
		echo "$_now host-a sshd[4242]: Invalid user $_user from $PEER4 port 50022"
	done >>"$DEBIAN_ROOT$AUTH_LOG"
}

# Has host A's LAPI a ban of the attacker by an ssh-bf scenario (ssh-bf,
# or ssh-bf_user-enum of the same file: the burst's users are distinct)?
decided()
{
	cscli_a decisions list -o raw --ip "$PEER4" >"$tap_tmp/decisions" &&
	grep -q "Ip:$PEER4,crowdsecurity/ssh-bf" "$tap_tmp/decisions"
}

# The attacker keeps trying until host A decides (the agent tails the log
# from where it was when it started reading it): at most SECS seconds.
attack_until_decided()
{
	_tries=$(($1 / 5))
	while [ "$_tries" -gt 0 ]; do
		ssh_attack
		within 5 decided && return 0
		_tries=$((_tries - 1))
	done
	return 1
}

tap_begin
load_module || tap_skip_all "cannot load $CFILTER_KO"
[ -n "${DEBIAN_ROOT:-}" ] ||
	tap_skip_all "no Debian root: run the guest with VM_DEBIAN=1"
[ -f crowdsec-cfilter-crowdsec.in ] ||
	tap_skip_all "crowdsec-cfilter-crowdsec.in not built: make -C tests/selftests"

check "setup: cfctl clear" "$CFCTL" clear
check "setup: the attacker's namespace $NS and host B's $VETH" veth_setup
check "setup: host A's namespace $NS_A and its link to host B" hosts_setup
check "setup: host B attaches cfilter to $VETH" "$CFCTL" attach "$VETH"
expect "setup: host B reaches host A" 0 -- reaches_a
check "setup: host A's CrowdSec configured" host_a_setup
"$IP" netns exec "$NS_A" chroot "$DEBIAN_ROOT" /usr/bin/env -i \
	PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
	crowdsec -c "$A_CONF" >"$tap_tmp/crowdsec.log" 2>&1 &
CROWDSEC_PID=$!
expect "host A: its LAPI answers on $LAPI within 120 s" 0 -- within 120 lapi_up
check "host B: the bouncer registered on host A, configured" host_b_setup
debian_start "$tap_tmp/bouncer.log" crowdsec-custom-bouncer -c "$BOUNCER_CONF"
BOUNCER_PID=$!		# chroot and env exec the bouncer
expect "host B: the bouncer pulls from host A's LAPI within 30 s" 0 -- \
	within 30 grep -q "adding '[0-9]*' decisions" "$DEBIAN_ROOT$BOUNCER_LOG"

expect "the attacker's pings to host B pass" 0 -- ping_from_ns_retry "$HOST4"
# CrowdSec 1.4's LAPI, Debian 12's, can fail to stream a new decision to a
# running bouncer: a pull that starts after the decision's creation time
# but reads before its commit moves the bouncer's last pull past it for
# good (test_crowdsec.sh makes such a decision again). On a loaded guest
# the commit can take longer than the bouncer's 1 s period. The bouncer is
# stopped until host A's decision is committed, so that its next pull, a
# stream update like any other, is the one that must bring it.
check "host B: the bouncer stopped while host A decides" \
	kill -STOP "$BOUNCER_PID"
expect "host A: the agent detects the attacker's ssh brute force within 90 s" 0 -- \
	attack_until_decided 90
expect "host A: the alert is an ssh-bf scenario's, from host A's agent" 0 \
	-o "crowdsecurity/ssh-bf" -- cscli_a alerts list -o raw --ip "$PEER4"
check "host B: the bouncer goes on" kill -CONT "$BOUNCER_PID"
expect "host B: the attacker is in cfilter, source crowdsec, within 15 s" 0 -- \
	within 15 "$CFCTL" test -s crowdsec "$PEER4"
expect "host B: for at most the profile's 4 hours" 0 -- \
	held_for crowdsec "$PEER4" 14400
expect "host B: the attacker's pings are dropped" nonzero -- \
	ping_from_ns "$HOST4"
check "host A: cscli decisions delete --ip $PEER4" \
	cscli_a decisions delete --ip "$PEER4"
expect "host B: out of cfilter within 15 s" 0 -- \
	within 15 not "$CFCTL" test "$PEER4"
expect "host B: the attacker's pings pass again" 0 -- \
	ping_from_ns_retry "$HOST4"

debian_stop_all
"$CFCTL" clear >/dev/null
if [ "$tap_failed" -ne 0 ]; then
	diag_file "host A's crowdsec" "$tap_tmp/crowdsec.log"
	diag_file "host A's crowdsec.log" "$DEBIAN_ROOT$A_LOGS/crowdsec.log"
	diag_file "host A's crowdsec_api.log" "$DEBIAN_ROOT$A_LOGS/crowdsec_api.log"
	diag_file "host B's bouncer" "$tap_tmp/bouncer.log"
	diag_file "host B's bouncer's log" "$DEBIAN_ROOT$BOUNCER_LOG"
fi
tap_end
