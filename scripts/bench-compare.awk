# The stock kernel against the kernel with the overlay core's series
# (patches/), from two reports of scripts/bench-report.awk:
#
#   awk -v date=YYYY-MM-DD -f bench-compare.awk STOCK/bench.md PATCHED/bench.md
#
# scripts/bench.sh -k runs it on bench/bench.md and its own report. Both
# reports' clocks count instructions, so figures of different days compare
# as long as the module and the benchmark did not change. Prints apply,
# removal and the overlay core's own window (both paths) per placement,
# mix and N, the core window's scaling exponents, and the targets of issue
# 21. Exits non-zero if a cell of one report is missing from the other.

FNR == 1 { file++; title[file] = $0 }
/^## Apply/ { sec = "apply"; next }
/^## Where an apply/ { sec = "core"; next }
/^## Removal/ { sec = "removal"; next }
/^## / { sec = ""; next }
sec != "" && $0 ~ /^\| [ab] \|/ {
	split($0, c, "|")
	k = trim(c[2]) SUBSEP trim(c[3]) SUBSEP trim(c[4]) + 0
	if (sec == "apply" || sec == "removal") {
		v[file, sec, "ovpop", k] = c[5] + 0
		v[file, sec, "kernel", k] = c[6] + 0
	} else {
		v[file, "core", "ovpop", k] = c[8] + 0
		v[file, "core", "kernel", k] = c[12] + 0
	}
	if (file == 1 && sec == "apply") {
		cell[++ncell] = k
		if (!(trim(c[4]) in seen_n)) {
			seen_n[trim(c[4])] = 1
			ns[++nn] = trim(c[4]) + 0
		}
	}
}

END {
	if (file != 2 || ncell == 0) {
		print "bench-compare: two reports with an Apply table needed" > "/dev/stderr"
		exit 1
	}
	for (i = 1; i <= ncell; i++)
		for (s = 1; s <= 3; s++)
			for (w = 1; w <= 2; w++) {
				key = 2 SUBSEP sname(s) SUBSEP wname(w) SUBSEP cell[i]
				if (!(key in v)) {
					split(cell[i], kk, SUBSEP)
					printf "bench-compare: %s %s N=%s: no %s of %s in the patched report\n",
						kk[1], kk[2], kk[3], sname(s), wname(w) > "/dev/stderr"
					bad = 1
				}
			}
	if (bad)
		exit 1

	printf "# The overlay core's series (patches/): stock kernel against patched, %s\n\n", date
	printf "Stock: %s  \nPatched: %s\n\n", sub_title(title[1]), sub_title(title[2])
	print "Medians in ms from the two reports (`scripts/bench.sh`, `scripts/bench.sh -k`); " \
		"\"ovpop\" is the apply through ovpop's configfs, \"kernel\" the kernel's own path " \
		"(`of_overlay_fdt_apply()` with the kernel's notifier); patched/stock < 1 is faster."

	table("apply", "Apply (until every device is registered)")
	table("core", "The overlay core's own window (of the apply: unflattening, resolving, building and applying the changeset)")
	table("removal", "Removal (until every device is gone)")

	printf "\n## Scaling exponents of the overlay core's own window\n\n"
	print "Slope of log t on log N: least squares over N >= 100, and from N = 1000 to 4000."
	print ""
	print "| p | mix | path | stock, N >= 100 | patched, N >= 100 | stock, 1000 to 4000 | patched, 1000 to 4000 |"
	print "|---|-----|------|----:|----:|----:|----:|"
	worst_e = 0
	for (i = 1; i <= ncell; i++) {
		split(cell[i], kk, SUBSEP)
		pm = kk[1] SUBSEP kk[2]
		if (pm in done)
			continue
		done[pm] = 1
		for (w = 1; w <= 2; w++) {
			e1 = slope(1, "core", wname(w), pm)
			e2 = slope(2, "core", wname(w), pm)
			t1 = pair(1, "core", wname(w), pm)
			t2 = pair(2, "core", wname(w), pm)
			printf "| %s | %s | %s | %s | %s | %s | %s |\n", kk[1], kk[2], wname(w),
				num(e1), num(e2), num(t1), num(t2)
			if (t2 != "" && t2 > worst_e)
				worst_e = t2
		}
	}

	# The targets of issue 21, worst over every placement, mix and path
	big = ns[nn]
	worst_c = 0
	worst_s = 0
	for (i = 1; i <= ncell; i++) {
		split(cell[i], kk, SUBSEP)
		for (w = 1; w <= 2; w++) {
			if (kk[3] == big) {
				r = ratio("core", wname(w), cell[i])
				if (r > worst_c)
					worst_c = r
			}
			if (kk[3] <= 100)
				for (s = 1; s <= 3; s += 2) {
					r = ratio(sname(s), wname(w), cell[i])
					if (r > worst_s)
						worst_s = r
				}
		}
	}
	printf "\n## Targets (issue 21)\n\n"
	print "| target | measured | |"
	print "|---|---|---|"
	printf "| overlay core's own window at N = %d <= 1/10 of stock | worst %.4fx (1/%.0f) | %s |\n",
		big, worst_c, (worst_c > 0 ? 1 / worst_c : 0), verdict(big == 4000 && worst_c <= 0.1)
	if (worst_e > 0)
		printf "| its scaling exponent <= 1.2 from N = 1000 to 4000 | worst %.2f | %s |\n",
			worst_e, verdict(worst_e <= 1.2)
	else
		print "| its scaling exponent <= 1.2 from N = 1000 to 4000 | not measured (needs N = 1000 and 4000) | **missed** |"
	printf "| apply and removal at N = 10 and 100 no slower than stock (<= 1.02x) | worst %.3fx | %s |\n",
		worst_s, verdict(worst_s > 0 && worst_s <= 1.02)
}

function table(s, head,   i, kk, w) {
	printf "\n## %s\n\n", head
	print "| p | mix | N | ovpop stock | ovpop patched | patched/stock | kernel stock | kernel patched | patched/stock |"
	print "|---|-----|--:|----:|----:|----:|----:|----:|----:|"
	for (i = 1; i <= ncell; i++) {
		split(cell[i], kk, SUBSEP)
		printf "| %s | %s | %d |", kk[1], kk[2], kk[3]
		for (w = 1; w <= 2; w++)
			printf " %.2f | %.2f | %s |", v[1, s, wname(w), cell[i]],
				v[2, s, wname(w), cell[i]], num(ratio(s, wname(w), cell[i]))
		printf "\n"
	}
}

function ratio(s, w, k) {
	if (v[1, s, w, k] <= 0)
		return ""
	return v[2, s, w, k] / v[1, s, w, k]
}

# least-squares slope of log t on log N over N >= 100 (bench-report.awk's)
function slope(f, s, w, pm,   i, n, x, y, sx, sy, sxx, sxy) {
	for (i = 1; i <= nn; i++) {
		if (ns[i] < 100 || v[f, s, w, pm SUBSEP ns[i]] <= 0)
			continue
		x = log(ns[i])
		y = log(v[f, s, w, pm SUBSEP ns[i]])
		n++
		sx += x
		sy += y
		sxx += x * x
		sxy += x * y
	}
	if (n < 2)
		return ""
	return (n * sxy - sx * sy) / (n * sxx - sx * sx)
}

function pair(f, s, w, pm,   a, b) {
	a = v[f, s, w, pm SUBSEP 1000]
	b = v[f, s, w, pm SUBSEP 4000]
	if (a <= 0 || b <= 0)
		return ""
	return log(b / a) / log(4)
}

function num(x) {
	return x == "" ? "-" : sprintf("%.2f", x)
}

function sname(s) {
	return s == 1 ? "apply" : s == 2 ? "core" : "removal"
}

function wname(w) {
	return w == 1 ? "ovpop" : "kernel"
}

function verdict(ok) {
	return ok ? "met" : "**missed**"
}

function sub_title(t) {
	sub(/^# ovpop benchmark: /, "", t)
	return t
}

function trim(s) {
	gsub(/^ +| +$/, "", s)
	return s
}
