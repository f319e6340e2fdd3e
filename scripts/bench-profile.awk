# The profile's report (scripts/bench.sh -p): reads the symbol list
# ("<function> <object>", objects relative to the kernel's build tree or
# "module:<name>.ko") and then the guest's PROF lines
# (tests/guest/mode-bench.sh), and prints markdown:
#   - per size and mix, the steps of an apply (medians of the runs with
#     only those traced: reading the file, ovpop's checks, the overlay
#     core's steps, the notifications that create devices), and the self
#     time summed by where the code lives (OF core, driver core, ovpop, ...)
#     in the run with every function traced, ovpop against the kernel's
#     path, and the difference; and the registration of the devices
#     (device_add() and its parts) for both and for the floor;
#   - the functions with the most time with their callees, both variants;
#   - the functions with the most self time.
# Variables: kernel, arch, date, clock. Exits 1 when a variant's lines are missing.

# The profiler cuts names to 30 characters
function key(name) { return substr(name, 1, 30) }

function where(obj) {
	if (obj == "module:ovpop.ko") return "ovpop (module)"
	if (obj == "module:ovpop_bench.ko") return "ovpop_bench (the kernel path's caller)"
	if (obj ~ /^drivers\/base\/firmware_loader\//) return "firmware loader"
	if (obj ~ /^drivers\/of\/(platform|device)\.o$/) return "OF device creation (of/platform.c, of/device.c)"
	if (obj ~ /^drivers\/of\//) return "OF core (overlay, changeset, unflatten, lookups)"
	if (obj ~ /^drivers\/base\// || obj ~ /^lib\/kobject/) return "driver core (drivers/base, kobject)"
	if (obj ~ /^drivers\/amba\//) return "AMBA bus"
	if (obj ~ /^fs\/(kernfs|sysfs)\//) return "sysfs, kernfs"
	if (obj ~ /^mm\//) return "memory (mm/)"
	if (obj ~ /^lib\//) return "lib/ (strings, sort, hashes, idr)"
	if (obj ~ /^kernel\//) return "kernel/ (locks, scheduling, irqs, printk)"
	if (obj ~ /^fs\//) return "VFS (the write, the firmware file)"
	if (obj ~ /^(arch|drivers\/(irqchip|clocksource))\//) return "arch/, interrupts, timers"
	return "other"
}

function ms(us) { return sprintf("%.2f", us / 1000) }

FNR == NR {
	k = key($1)
	if (!(k in obj))
		obj[k] = $2
	next
}

# Idling is not the apply's (the profile boots one CPU; it idles when the
# shell waits)
$1 == "PROF" && $8 == "do_idle" { next }

# The phases: per run, summed over the CPUs; medians at the end
$1 == "PROF" && $3 == "phases" {
	c = $4 " " $5
	ph[$2, c, $8, $9] += $7
	phh[$2, c, $8, $9] += $6
	if ($9 > nruns) nruns = $9
	next
}

$1 == "PROF" {
	v = $2; how = $3; c = $4 " " $5	# mix N
	if (!(c in seen)) { cells[++ncells] = c; seen[c] = 1 }
	have[v, c] = 1
	f = $8
	t[v, how, c, f] += $7
	if (how == "self")
		hits[v, c, f] += $6
	if (!((how, c, f) in fseen)) {
		fseen[how, c, f] = 1
		fn[how, c, ++nf[how, c]] = f
	}
	w = (f in obj) ? where(obj[f]) : "other (not in the symbol list)"
	if (how == "self") {
		b[v, c, w] += $7
		tot[v, c] += $7
		if (!((c, w) in wseen)) { wseen[c, w] = 1; wl[c, ++nw[c]] = w }
	}
}

# pmed VARIANT CELL FUNCTION: the median over the runs of its time in the
# phases, in us (0 if never called); its calls in the first run into pcalls
function pmed(v, c, f,    i, j, n, tmp, a) {
	n = 0
	for (i = 1; i <= nruns; i++)
		a[++n] = ph[v, c, f, i] + 0
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
			tmp = a[j]; a[j] = a[j - 1]; a[j - 1] = tmp
		}
	pcalls = phh[v, c, f, 1] + 0
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}

# step NAME FUNCTION: one line of the phases, for both variants
function step(name, f,    o, k, co) {
	f = key(f)
	o = pmed("ovpop", c, f); co = pcalls
	k = pmed("kernel", c, f)
	pline(name, o, co, k, pcalls)
}

function pline(name, o, co, k, ck) {
	printf "| %s | %s | %s | %s | %s | %+.2f |\n", name, ms(o), co, ms(k), ck, (o - k) / 1000
}

# core CELL FUNCTION: ovpop's time in FUNCTION within the core's apply:
# when the precheck ran, it unflattened and resolved the same blob too
function core(c, f,    v) {
	v = pmed("ovpop", c, f)
	return pcalls > 1 ? v / pcalls : v
}

# phases CELL N MIX: the steps of an apply, medians of the traced runs
function phases(c, n, mix,    o, k) {
	printf "## %s nodes, %s\n\n", n, mix
	if (!nruns) return
	printf "The steps of an apply, time with callees, medians of %d runs with only these functions traced (ms; calls):\n\n", nruns
	print "| step | ovpop | calls | kernel | calls | ovpop - kernel |"
	print "|------|------:|------:|-------:|------:|------:|"
	step("the write (`vfs_write`)", "vfs_write")
	step("- reading the file (`kernel_read_file`)", "kernel_read_file")
	step("- ovpop: the blob's structure (`ovpop_blob_check`)", "ovpop_blob_check")
	step("- ovpop: conflicts (`ovpop_precheck`)", "ovpop_precheck")
	step("- `of_overlay_fdt_apply()`", "of_overlay_fdt_apply")
	step("-- unflattening (`of_fdt_unflatten_tree`; ovpop: also its precheck's)", "of_fdt_unflatten_tree")
	step("-- resolving (`of_resolve_phandles`; ovpop: also its precheck's)", "of_resolve_phandles")
	o = pmed("ovpop", c, "of_overlay_fdt_apply") - core(c, "of_fdt_unflatten_tree") - \
		core(c, "of_resolve_phandles") - pmed("ovpop", c, "__of_changeset_apply_entries") - \
		pmed("ovpop", c, "__of_changeset_apply_notify") - pmed("ovpop", c, "overlay_notify")
	k = pmed("kernel", c, "of_overlay_fdt_apply") - pmed("kernel", c, "of_fdt_unflatten_tree") - \
		pmed("kernel", c, "of_resolve_phandles") - pmed("kernel", c, "__of_changeset_apply_entries") - \
		pmed("kernel", c, "__of_changeset_apply_notify") - pmed("kernel", c, "overlay_notify")
	pline("-- building the changeset, its duplicate check (the rest)", o, "", k, "")
	step("-- applying the entries (`__of_changeset_apply_entries`)", "__of_changeset_apply_entries")
	step("--- of which sysfs of the nodes (`__of_attach_node_sysfs`)", "__of_attach_node_sysfs")
	step("-- the reconfig notifications (`__of_changeset_apply_notify`)", "__of_changeset_apply_notify")
	step("--- ovpop's notifier (`ovpop_reconfig_notify`)", "ovpop_reconfig_notify")
	step("--- the kernel's notifier (`of_platform_notify`)", "of_platform_notify")
	step("---- of which `device_add()`", "device_add")
	step("-- overlay notifiers (`overlay_notify`)", "overlay_notify")
	print "| *inside the notifiers* | | | | | |"
	step("what changed (`of_reconfig_get_state_change`; ovpop: also the kernel's notifier after it)", "of_reconfig_get_state_change")
	step("ovpop: recording the overlay (`ovpop_stack_note`)", "ovpop_stack_note")
	step("ovpop: a node added (`ovpop_node_added`)", "ovpop_node_added")
	step("- ovpop: its bus device and population (`ovpop_place_get`)", "ovpop_place_get")
	step("- ovpop: creating its device (`ovpop_device_create`)", "ovpop_device_create")
	step("kernel: creating a device (`of_platform_device_create_pdata`; the bus walk of `of_find_device_by_node()` is inlined in the notifier)", "of_platform_device_create_pdata")
	step("allocating a platform device (`of_device_alloc`; ovpop: its own, inlined, for fewer than 4 addresses)", "of_device_alloc")
	step("adding an AMBA device (`amba_device_add`)", "amba_device_add")
	print "| *after the apply* | | | | | |"
	step("- firmware released (`release_firmware`)", "release_firmware")
	step("- ovpop: its log line (`_printk`)", "_printk")
	step("- ovpop: the layer's records (`ovpop_stack_record_end`)", "ovpop_stack_record_end")
	step("- ovpop: pins between layers (`ovpop_stack_update`)", "ovpop_stack_update")
	print ""
	if (!(("floor", c, key("device_add"), 1) in ph)) return
	print "Registering the devices, against the floor (the same devices registered without DT by ovpop_bench; medians, ms; calls):\n"
	print "| step | ovpop | calls | kernel | calls | floor | calls |"
	print "|------|------:|------:|-------:|------:|------:|------:|"
	freg("`device_add()`", "device_add")
	freg("- probing: a driver for it (`bus_probe_device`)", "bus_probe_device")
	freg("-- matching it with each platform driver (`platform_match`)", "platform_match")
	freg("- fw_devlink: its node's properties parsed for suppliers (`of_fwnode_add_links`)", "of_fwnode_add_links")
	printf "| - the rest (sysfs, uevent, links, power management) | %s | | %s | | %s | |\n", \
		ms(frest("ovpop")), ms(frest("kernel")), ms(frest("floor"))
	print ""
}

# freg NAME FUNCTION: one line of the registration table, three variants
function freg(name, f,    o, co, k, ck) {
	f = key(f)
	o = pmed("ovpop", c, f); co = pcalls
	k = pmed("kernel", c, f); ck = pcalls
	printf "| %s | %s | %s | %s | %s | %s | %s |\n", name, ms(o), co, ms(k), ck, ms(pmed("floor", c, f)), pcalls
}

# frest VARIANT: device_add() less its parts in the table
function frest(v) {
	return pmed(v, c, key("device_add")) - pmed(v, c, key("bus_probe_device")) - \
		pmed(v, c, key("of_fwnode_add_links"))
}

# sortdesc N: sorts list[1..N] by val[], largest first
function sortdesc(n,    i, j, tmp) {
	for (i = 2; i <= n; i++) {	# insertion sort
		tmp = list[i]
		for (j = i - 1; j >= 1 && val[list[j]] < val[tmp]; j--)
			list[j + 1] = list[j]
		list[j + 1] = tmp
	}
}

# order CELL: the places of a cell into list[1..], by the larger time
function order(c,    i, w, n) {
	n = 0
	for (i = 1; i <= nw[c]; i++) {
		w = wl[c, i]
		list[++n] = w
		val[w] = b["ovpop", c, w] > b["kernel", c, w] ? b["ovpop", c, w] : b["kernel", c, w]
	}
	sortdesc(n)
	return n
}

# top HOW CELL COUNT: the functions of both variants with the most time
# into list[1..], by the larger of the two; returns how many (<= COUNT)
function top(how, c, count,    i, f, n) {
	n = 0
	for (i = 1; i <= nf[how, c]; i++) {
		f = fn[how, c, i]
		list[++n] = f
		val[f] = t["ovpop", how, c, f] > t["kernel", how, c, f] ? \
			t["ovpop", how, c, f] : t["kernel", how, c, f]
	}
	sortdesc(n)
	return (n < count) ? n : count
}

# functions CELL HOW COUNT TITLE: a table of the functions with the most
# time (HOW: incl or self) in the runs with every function traced
function functions(c, how, count, title,    i, n, f) {
	printf "%s (ms; calls; every function traced)\n\n", title
	print "| function | where | ovpop | calls | kernel | calls |"
	print "|----------|-------|------:|------:|-------:|------:|"
	n = top(how, c, count)
	for (i = 1; i <= n; i++) {
		f = list[i]
		printf "| `%s` | %s | %s | %d | %s | %d |\n", f, (f in obj) ? obj[f] : "?",
			ms(t["ovpop", how, c, f]), hits["ovpop", c, f],
			ms(t["kernel", how, c, f]), hits["kernel", c, f]
	}
}

END {
	if (!ncells) { print "no PROF lines"; exit 1 }
	for (i = 1; i <= ncells; i++)
		if (!have["ovpop", cells[i]] || !have["kernel", cells[i]]) {
			print "missing variant for " cells[i]; exit 1
		}
	printf "# ovpop profile: %s, Linux %s (%s, %s)\n\n", date, kernel, arch, clock
	print "Applies under ftrace's function profiler (`scripts/bench.sh -p`), placement **a** " \
		"(the nodes under the populated `/platform-bus@c000000`): **ovpop** through its configfs " \
		"`path`, **kernel** the same overlay through `of_overlay_fdt_apply()` with the kernel " \
		"creating the devices (ovpop unloaded), in turn in one boot. The steps are timed with only " \
		"their functions traced; each traced call still adds the tracer's cost (about half a " \
		"microsecond here) to its caller, so a step with many traced calls inside reads high " \
		"(ovpop's notifier: 3 per notification, the kernel's: 1). The tables by code and by function come from one apply with every " \
		"kernel and module function traced, which slows it down several times and weighs on small " \
		"functions: read shares there, not absolute times. Time asleep is not counted.\n"
	for (i = 1; i <= ncells; i++) {
		c = cells[i]; split(c, cp, " ")
		phases(c, cp[2], cp[1])
		printf "Self time by where the code lives, one run with every function traced (ms):\n\n"
		print "| code | ovpop | share | kernel | share | ovpop - kernel |"
		print "|------|------:|------:|-------:|------:|------:|"
		n = order(c)
		for (j = 1; j <= n; j++) {
			w = list[j]
			printf "| %s | %s | %.0f%% | %s | %.0f%% | %+.2f |\n", w,
				ms(b["ovpop", c, w]), 100 * b["ovpop", c, w] / tot["ovpop", c],
				ms(b["kernel", c, w]), 100 * b["kernel", c, w] / tot["kernel", c],
				(b["ovpop", c, w] - b["kernel", c, w]) / 1000
		}
		printf "| **all** | **%s** | | **%s** | | **%+.2f** |\n\n", ms(tot["ovpop", c]),
			ms(tot["kernel", c]), (tot["ovpop", c] - tot["kernel", c]) / 1000
	}
	c = cells[ncells]; split(c, cp, " ")
	functions(c, "incl", 40, sprintf("## %s nodes, %s: functions with the most time, callees included", cp[2], cp[1]))
	functions(c, "self", 25, sprintf("\n## %s nodes, %s: functions with the most self time", cp[2], cp[1]))
}
