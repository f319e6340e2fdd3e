# The benchmark's report: reads the guest's BENCH/ADDON lines
# (tests/guest/mode-bench.sh), writes the markdown report on stdout and the plot
# data to the file `dat`; exits 1 when a run created the wrong number of
# devices or left one behind (the report says which).
#
#   awk -v kernel=K -v arch=A -v date=D -v clock=C -v dat=FILE -f bench-report.awk RAW

function kv(s,   i) {
	i = index(s, "=")
	return substr(s, i + 1) + 0
}

function median(k,   n, i, j, t, a) {
	n = cnt[k]
	if (!n)
		return -1
	for (i = 1; i <= n; i++)
		a[i] = val[k, i]
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
			t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
		}
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}

function add(k, v) {
	val[k, ++cnt[k]] = v
}

function ms(ns) {
	return ns < 0 ? "-" : sprintf("%.2f", ns / 1e6)
}

function ratio(a, b) {
	return (a < 0 || b <= 0) ? "-" : sprintf("%.2f", a / b)
}

# Combination C (1 .. 4 * ns) of placement, mix and size, into p, mix, n
function combo(c) {
	p = (c <= 2 * ns) ? "a" : "b"
	mix = (int((c - 1) / ns) % 2 == 0) ? "mixed" : "plat"
	n = size[(c - 1) % ns + 1]
}

# Median of METRIC for VARIANT at p, mix, n (the floor has no placement)
function med(variant, metric) {
	return median(variant SUBSEP (variant == "floor" ? "-" : p) SUBSEP mix SUBSEP n SUBSEP metric)
}

function verdict(ok) {
	return ok ? "met" : "**missed**"
}

$1 == "BENCH" {
	v = $2; p = $3; mix = $4; n = $5 + 0
	if (!(n in seen)) {
		seen[n] = 1
		size[++ns] = n
	}
	for (i = 7; i <= NF; i++) {
		split($i, f, "=")
		x[f[1]] = kv($i)
		add(v SUBSEP p SUBSEP mix SUBSEP n SUBSEP f[1], x[f[1]])
	}
	# per run: the write outside of_overlay_fdt_apply(), and the core's
	# own work in it (the notifiers creating devices taken out)
	if (v != "floor") {
		add(v SUBSEP p SUBSEP mix SUBSEP n SUBSEP "outside", x["apply"] - x["kapply"])
		add(v SUBSEP p SUBSEP mix SUBSEP n SUBSEP "kcore", x["kapply"] - x["knotify"])
	}
	want = n
	if (p == "b")
		want = (v == "kernel") ? 1 : n + 1
	d = x["devices"]; l = x["left"]
	if (d != want || l != 0) {
		bad = bad sprintf("- %s %s-%s-%d run %s: %d devices (want %d), %d left after removal\n",
				  v, p, mix, n, $6, d, want, l)
	}
	runs[$6] = 1
	next
}

$1 == "ADDON" && $2 != "0" {
	add("addon" SUBSEP "applied", kv($3))
	add("addon" SUBSEP "bound", kv($4))
}

END {
	for (i = 2; i <= ns; i++)
		for (j = i; j > 1 && size[j - 1] > size[j]; j--) {
			t = size[j]; size[j] = size[j - 1]; size[j - 1] = t
		}
	for (i = 1; i <= ns; i++)
		if (size[i] >= 100)
			nbig++
	nmax = size[ns]
	nr = 0
	for (r in runs)
		nr++

	printf "# ovpop benchmark: %s, Linux %s (%s, %s)\n\n", date, kernel, arch, clock
	printf "Medians of %d runs per cell, times in ms, alternating ovpop, the kernel's own path and the floor in one boot on one CPU, pending RCU callbacks run before each apply (`scripts/bench.sh`). ", nr
	printf "Placement **a**: the nodes under the populated `/platform-bus@c000000`; **b**: under a new `simple-bus` the overlay adds. "
	printf "Mix **mixed**: every second node a primecell (forced periphid; ovpop makes AMBA devices, the kernel platform devices); **plat**: platform nodes only. "
	printf "In **b** the kernel creates only the bus device: its time is for 1 device, not N+1. "
	if (clock ~ /instruction/)
		printf "Guest time counts instructions (QEMU `-icount shift=0`: 1 ns each), independent of the host's load; `-w` measures host time.\n\n"
	else
		printf "Host time under TCG: runs of one cell spread by tens of percent on a loaded host.\n\n"
	if (bad != "")
		printf "**Wrong device counts:**\n\n%s\n", bad

	print "## Apply (until every device is registered)\n"
	print "Populate phase: ovpop's time in its notifier creating the devices, of which device_add: the driver core's "
	print "`device_add()`/`amba_device_add()` (probe included), the rest ovpop's own work. Floor: the same devices registered without DT.\n"
	print "| p | mix | N | ovpop | kernel | ovpop/kernel | populate phase | its device_add | ovpop's own | floor | its device_add | populate/floor |"
	print "|---|-----|--:|------:|-------:|------:|------:|------:|------:|------:|------:|------:|"
	for (c = 1; c <= 4 * ns; c++) {
		combo(c)
		oa = med("ovpop", "apply"); ka = med("kernel", "apply")
		op = med("ovpop", "populate"); og = med("ovpop", "register")
		fl = med("floor", "populate"); fg = med("floor", "register")
		printf "| %s | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", p, mix, n,
		       ms(oa), ms(ka), ratio(oa, ka), ms(op), ms(og), ms(op - og),
		       ms(fl), ms(fg), ratio(op, fl)
		if (p == "a" && oa / ka > worst_apply)
			worst_apply = oa / ka
		if ((n >= 100 || nbig < 1) && op / fl > worst_pop)
			worst_pop = op / fl
		if (p == "a" && n == 4000) {
			r = med("ovpop", "kremove") / med("kernel", "kremove")
			if (r > worst_remove)
				worst_remove = r
			have4000 = 1
		}
	}

	print "\n## Where an apply's time goes\n"
	print "Both paths timed in the kernel: `of_overlay_fdt_apply()` (ovpop/stats `apply`, ovpop_bench `times`), "
	print "of which the reconfig notifier chain, where the devices are created (ovpop's notifier and the kernel's, which has nothing left to do then; "
	print "or the kernel's alone), timed for both by a notifier pair of ovpop_bench around the chain, "
	print "and the overlay core's own work (the rest: unflattening, resolving, building and applying the changeset). "
	print "Outside: the rest of the write (loading the file, the syscall; for ovpop also its checks, of which precheck: only for overlays that can conflict). "
	print "Medians per column, each of per-run values.\n"
	print "| p | mix | N | ovpop apply | outside | of which precheck | core's own | notifiers | kernel apply | outside | core's own | notifiers |"
	print "|---|-----|--:|----:|----:|----:|----:|----:|----:|----:|----:|----:|"
	for (c = 1; c <= 4 * ns; c++) {
		combo(c)
		printf "| %s | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", p, mix, n,
		       ms(med("ovpop", "apply")), ms(med("ovpop", "outside")),
		       ms(med("ovpop", "precheck")), ms(med("ovpop", "kcore")),
		       ms(med("ovpop", "knotify")), ms(med("kernel", "apply")),
		       ms(med("kernel", "outside")), ms(med("kernel", "kcore")),
		       ms(med("kernel", "knotify"))
	}

	print "\n## Removal (until every device is gone)\n"
	print "`of_overlay_remove()` timed in the kernel (ovpop/stats `unapply`, ovpop_bench `times`): it returns once every device is gone. "
	print "(The wall time of an `rmdir` includes forking the busybox applet, ~2.5 ms here; `remove=` in bench.raw.)\n"
	print "| p | mix | N | ovpop | kernel | ovpop/kernel | ovpop depopulate phase | floor | depopulate/floor |"
	print "|---|-----|--:|------:|-------:|------:|------:|------:|------:|"
	for (c = 1; c <= 4 * ns; c++) {
		combo(c)
		orm = med("ovpop", "kremove"); krm = med("kernel", "kremove")
		od = med("ovpop", "depopulate"); fd = med("floor", "depopulate")
		printf "| %s | %s | %d | %s | %s | %s | %s | %s | %s |\n", p, mix, n,
		       ms(orm), ms(krm), ratio(orm, krm), ms(od), ms(fd), ratio(od, fd)
	}

	printf "\n## Scaling exponents (slope of log t on log N, N %s)\n\n", (nbig >= 2 ? ">= 100" : "all")
	print "| p | mix | ovpop apply | kernel apply | ovpop populate | floor | ovpop remove | kernel remove | ovpop depopulate | floor |"
	print "|---|-----|----:|----:|----:|----:|----:|----:|----:|----:|"
	for (c = 1; c <= 4 * ns; c += ns) {
		combo(c)
		o = "ovpop" SUBSEP p SUBSEP mix; k = "kernel" SUBSEP p SUBSEP mix
		fk = "floor" SUBSEP "-" SUBSEP mix
		printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", p, mix,
		       expo2(o, "apply"), expo2(k, "apply"), expo2(o, "populate"),
		       expo2(fk, "populate"), expo2(o, "kremove"), expo2(k, "kremove"),
		       expo2(o, "depopulate"), expo2(fk, "depopulate")
		s = slope2(o, "populate")
		if (s != "" && s > worst_exp)
			worst_exp = s
	}

	print "\n## Memory (bytes per device)\n"
	print "Tracking: what ovpop's records of the devices and of the applied overlay take (`ovpop/stats`, exact). "
	print "In use: growth over the apply of the bytes in allocated slab objects (`/proc/slabinfo`: active objects times their size), what the apply keeps. "
	print "Slab: growth of Slab, the pages (KiB granularity), which also moves with the room earlier runs left free in partly used slabs. "
	print "Both after RCU's pending frees and with empty slabs shrunk; only N >= 1000 shown when measured. "
	print "Placement b: the kernel creates 1 device, not N.\n"
	print "| p | mix | N | ovpop tracking | in use: ovpop | kernel | floor | ovpop - kernel | Slab: ovpop | kernel | floor | ovpop - kernel |"
	print "|---|-----|--:|----:|----:|----:|----:|----:|----:|----:|----:|----:|"
	for (c = 1; c <= 4 * ns; c++) {
		combo(c)
		if (n < 1000 && nmax >= 1000)
			continue
		tr = med("ovpop", "track") / n
		ol = med("ovpop", "live") / n
		kl = med("kernel", "live") / n
		os = med("ovpop", "slab") * 1024 / n
		ks = med("kernel", "slab") * 1024 / n
		printf "| %s | %s | %d | %.0f | %.0f | %.0f | %.0f | %s | %.0f | %.0f | %.0f | %s |\n",
		       p, mix, n, tr, ol, kl, med("floor", "live") / n,
		       (p == "a" ? sprintf("%.0f", ol - kl) : "-"), os, ks,
		       med("floor", "slab") * 1024 / n, (p == "a" ? sprintf("%.0f", os - ks) : "-")
		if (tr > worst_mem)
			worst_mem = tr
	}

	aa = median("addon" SUBSEP "applied"); ab = median("addon" SUBSEP "bound")
	printf "\n## Add-on board (overlays/addon-board.dtso: bus, PL061, LED, regulator)\n\n"
	printf "Applied in %s ms; all three leaf devices bound after %s ms (medians of %d).\n", ms(aa), ms(ab), cnt["addon" SUBSEP "bound"]

	print "\n## Targets (issue 5)\n"
	print "| target | measured | |"
	print "|---|---|---|"
	printf "| ovpop apply <= 1.0x the kernel's, every N (placement a) | worst %.4fx | %s |\n", worst_apply, verdict(worst_apply <= 1.0)
	if (have4000)
		printf "| ovpop removal <= 0.5x the kernel's at N = 4000 (a) | worst %.2fx | %s |\n", worst_remove, verdict(worst_remove <= 0.5)
	printf "| ovpop populate phase <= 1.2x the floor (N >= 100) | worst %.2fx | %s |\n", worst_pop, verdict(worst_pop <= 1.2)
	printf "| populate phase scaling exponent <= 1.1 | worst %.2f | %s |\n", worst_exp, verdict(worst_exp <= 1.1)
	printf "| tracking <= 128 bytes per device | worst %.0f B | %s |\n", worst_mem, verdict(worst_mem <= 128)
	printf "| add-on board applied and bound within 50 ms | %s ms | %s |\n", ms(ab), verdict(ab >= 0 && ab <= 50e6)

	# plot data: placement a, platform only; ovpop in b, mixed; and the
	# kernel's of_overlay_fdt_apply() in b, plat (1 device: the OF core)
	for (i = 1; i <= ns; i++) {
		n = size[i]; p = "b"; mix = "mixed"
		bm = med("ovpop", "apply") / 1e6
		mix = "plat"
		core = med("kernel", "kapply") / 1e6
		p = "a"
		printf "%d %s %s %s %s %s %s %s %s %s\n", n,
		       med("ovpop", "apply") / 1e6, med("kernel", "apply") / 1e6,
		       med("floor", "populate") / 1e6, med("ovpop", "populate") / 1e6, bm,
		       med("ovpop", "kremove") / 1e6, med("kernel", "kremove") / 1e6,
		       med("floor", "depopulate") / 1e6, core > dat
	}
	if (bad != "" || nr < 1)
		exit 1
}

# least-squares slope of log(median) on log(N), over N >= 100 (all N if
# fewer than two are); "" without two points
function slope2(pre, metric,   i, n, x, y, sx, sy, sxx, sxy, m, lo) {
	lo = (nbig >= 2) ? 100 : 0
	for (i = 1; i <= ns; i++) {
		if (size[i] < lo)
			continue
		m = median(pre SUBSEP size[i] SUBSEP metric)
		if (m <= 0)
			continue
		x = log(size[i]); y = log(m)
		n++; sx += x; sy += y; sxx += x * x; sxy += x * y
	}
	if (n < 2)
		return ""
	return (n * sxy - sx * sy) / (n * sxx - sx * sx)
}

function expo2(pre, metric,   s) {
	s = slope2(pre, metric)
	return s == "" ? "-" : sprintf("%.2f", s)
}
