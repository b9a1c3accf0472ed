# SPDX-License-Identifier: GPL-2.0
#
# make bench-xdp-insns BENCH_PROFILE=1: each series' instructions per
# packet in the functions that the parse-only program's series of the
# same family and traffic does not run (the test run's own path is left
# out): the program, as the JIT made it, and what it calls. Run as
#   awk -f insns-profile.awk CONSOLE PLUGIN_LOG CONSOLE
# The first pass over the guest's console takes the kernel's and the
# modules' symbols ("ksym ADDR TYPE NAME [MODULE]", from /proc/kallsyms at
# the end); the plugin's log gives each series' blocks ("insns-block VADDR
# INSNS RUNS TICKS" after vCPU 0's second marker of the series); the second pass
# names them, with the JIT's symbols printed just before the series
# ("insns-ksym ADDR TYPE NAME [bpf]"), as programs come and go.

# Addresses as 16 hex digits, so that they sort as strings.
function pad(v) {
	while (length(v) < 16)
		v = "0" v
	return v
}

# The index of the last symbol at or below @v in @addr[1..@n] (sorted),
# or 0.
function index_of(v, addr, n,    lo, hi, mid) {
	if (n == 0 || v < addr[1])
		return 0
	lo = 1
	hi = n
	while (lo < hi) {
		mid = int((lo + hi + 1) / 2)
		if (addr[mid] <= v)
			lo = mid
		else
			hi = mid - 1
	}
	return lo
}

# Heapsort of @addr[1..@n], @names alongside.
function sort_syms(addr, names, n,    i, a, m) {
	for (i = int(n / 2); i >= 1; i--)
		sift(addr, names, i, n)
	for (i = n; i > 1; i--) {
		a = addr[1]; addr[1] = addr[i]; addr[i] = a
		m = names[1]; names[1] = names[i]; names[i] = m
		sift(addr, names, 1, i - 1)
	}
}

function sift(addr, names, i, n,    c, a, m) {
	while (2 * i <= n) {
		c = 2 * i
		if (c < n && addr[c + 1] > addr[c])
			c++
		if (addr[i] >= addr[c])
			return
		a = addr[i]; addr[i] = addr[c]; addr[c] = a
		m = names[i]; names[i] = names[c]; names[c] = m
		i = c
	}
}

FNR == 1 {
	pass++
}

pass == 1 {
	if ($1 == "ksym" && ($3 == "t" || $3 == "T")) {
		kaddr[++nk] = pad($2)
		kname[nk] = $4 (NF > 4 ? " " $5 : "")
	}
	next
}

pass == 2 {
	if (!sorted) {
		sort_syms(kaddr, kname, nk)
		sorted = 1
	}
	if ($1 == "insns-mark" && $2 == 0) {
		marks++
		in_series = marks % 2 == 0 ? marks / 2 - 1 : -1
	} else if ($1 == "insns-block" && in_series >= 0) {
		nb[in_series]++
		bv[in_series, nb[in_series]] = pad($2)
		bi[in_series, nb[in_series]] = $3 * $4
		bt[in_series, nb[in_series]] = $5
	}
	next
}

$1 == "insns-ksym" {
	if (fresh) {
		nbpf = 0
		fresh = 0
	}
	baddr[++nbpf] = pad($2)
	bname[nbpf] = $4
	next
}

/^insns-series / {
	fresh = 1
	s = series++
	line = $0
	sub(/^insns-series /, "", line)
	split(line, f, " \\| ")
	if (f[2] !~ /^(cfilter|bloom|hash|parse only)/)
		next
	sort_syms(baddr, bname, nbpf)
	delete by
	delete ticks
	total = 0
	for (i = 1; i <= nb[s]; i++) {
		v = bv[s, i]
		# the closer of the kernel's symbol and the JIT's below it
		k = index_of(v, kaddr, nk)
		b = index_of(v, baddr, nbpf)
		if (b && (!k || baddr[b] > kaddr[k]))
			nm = bname[b]
		else if (k)
			nm = kname[k]
		else
			nm = "0x" v
		by[nm] += bi[s, i]
		ticks[nm] += bt[s, i]
		total += bi[s, i]
	}
	# the functions of the parse-only program's series of the family and
	# traffic: what every program runs besides its own
	fam = match(f[1], /IPv[46]/) ? substr(f[1], RSTART, 4) : ""
	base = fam SUBSEP f[3]
	if (f[2] ~ /^parse only/) {
		for (nm in by)
			parse[base, nm] = by[nm] / f[4]
		parse_total[base] = total / f[4]
		next
	}
	own = 0
	own_ticks = 0
	for (nm in by)
		if (!((base, nm) in parse)) {
			own += by[nm]
			own_ticks += ticks[nm]
		}
	printf "%s | %s | %s: %.1f instructions per packet, %.1f of them below, in %.0f host ticks\n", \
		f[1], f[2], f[3], total / f[4], own / f[4], own_ticks / f[4]
	fflush()
	for (nm in by)
		if (!((base, nm) in parse) && by[nm] / f[4] >= 0.5)
			printf "%9.1f %8.0f  %s\n", by[nm] / f[4], ticks[nm] / f[4], nm | "sort -rn"
	close("sort -rn")
	print ""
}
