#!/bin/sh
# The mutation fuzzer: 10000 mutated copies of overlays/fuzz-seed.dtbo (the
# first 2000 in the debug lane, where each costs 20 times more) go through
# configfs (ovpop-tool fuzz: one item each, written to dtbo). Every
# refusal must leave status "unapplied" and a message in "error"; a
# mutation that happens to be a valid overlay is applied and removed again;
# every rmdir must work. Afterwards the live tree and the devices must be as
# before. The seeds are fixed, so a failure can be replayed.
# Prints "# fuzz cases: ..." and the memory figures; Slab may grow by at
# most 1 MiB (ov_check_slab).
here=$(dirname "$0")
# shellcheck source=ktap.sh
. "$here/ktap.sh"
# shellcheck source=ov.sh
. "$here/ov.sh"

cases=10000
[ "${OV_LANE:-}" = debug ] && cases=2000
snap="$OV_TMP/fuzz.snap"
out="$OV_TMP/fuzz.out"

# shellcheck disable=SC2317 # run by ktap_end
cleanup() {
	for i in "$OV_CFS"/fuzz-*; do
		[ -d "$i" ] && rmdir "$i"
	done
	rm -f "$snap" "$out"
}

ktap_begin fuzz
ktap_at_exit cleanup
ov_snapshot >"$snap"
mem0=$(ov_mem)

# A mutation may add a property to a node of the base tree (the kernel
# warns that it leaks it on removal) or break a reference the resolver
# then reports; the thousands of refusals are not worth the log's space.
expect_kmsg 'OF: overlay: WARNING: memory leak will occur if overlay removed'
# An interrupt specifier with an invalid trigger type makes the GIC driver
# WARN while the device is created (drivers/irqchip/irq-gic.c), whoever
# creates it: a wrong hardware description, not a malformed blob.
expect_kmsg '\[ cut here \]|HW irq [0-9]+ has invalid type|WARNING: (CPU: [0-9]+ PID: [0-9]+ at )?drivers/irqchip/irq-gic'
printf 'OVPOP-QUIET-BEGIN: %s\n' '(ovpop: fuzz-[0-9]+: |OF: (overlay|resolver|fdt): )' \
	>/dev/kmsg

# The console shows errors in the debug lane (loglevel=4): not these
ov_console_quiet
start=$(date +%s)
"$OVPOP_DIR/bin/ovpop-tool" fuzz "$OVPOP_DIR/overlays/fuzz-seed.dtbo" "$cases" 1 >"$out" 2>&1
rc=$?
secs=$(($(date +%s) - start))
ov_console_restore
echo "OVPOP-QUIET-END" >/dev/kmsg
while IFS= read -r line; do
	ktap_diag "$line"
done <"$out"
last=$(tail -n 1 "$out")
if [ "$rc" -eq 0 ]; then
	ktap_ok every_case_refused_with_a_message_or_removed
else
	ktap_fail every_case_refused_with_a_message_or_removed "$last"
fi
ktap_match all_cases_ran "^fuzz: $cases cases" "$last"

if d=$(ov_snapshot_diff "$snap"); then
	ktap_ok nothing_changed
else
	ktap_fail nothing_changed "state differs: $d"
fi
mem1=$(ov_mem)
ktap_diag "fuzz cases: $cases in ${secs}s; memory (MemAvailable Slab, KiB): before $mem0, after $mem1"
# What stays: the properties the kernel leaks by design (its "memory leak
# will occur" warning, a few hundred small ones) and vmalloc areas that it
# frees lazily
ov_check_slab slab_within_1MiB "$mem0" "$mem1"
ktap_end
