#!/bin/sh
# The kmemleak scan at the end of the debug lane's run: run.sh cleared the
# suspects of the boot after loading the modules, so what is reported here
# leaked during the tests. Two scans (kmemleak reports an object once it
# has been unreferenced for 5 s); every suspect fails the case, with its
# first lines as diagnostics (the host's log scan sees them too).
here=$(dirname "$0")
# shellcheck source=ktap.sh
. "$here/ktap.sh"
# shellcheck source=lib.sh
. "$here/lib.sh"

k=/sys/kernel/debug/kmemleak

ktap_begin kmemleak
if [ ! -w "$k" ]; then
	ktap_skip scan "no $k (kernel without DEBUG_KMEMLEAK)"
	ktap_end
fi
sleep 6
echo scan >"$k"
sleep 6
echo scan >"$k"
report=$(cat "$k")
n=$(printf '%s\n' "$report" | grep -c '^unreferenced object')
ktap_diag "leaks: $n"
if [ "$n" -eq 0 ]; then
	ktap_ok no_leaks
else
	ktap_fail no_leaks "$n suspected leak(s)"
	# not a pipeline: ktap_diag must run in this shell
	printf '%s\n' "$report" | head -n 80 >"$OV_TMP/kmemleak.report"
	while IFS= read -r l; do
		ktap_diag "$l"
	done <"$OV_TMP/kmemleak.report"
	rm -f "$OV_TMP/kmemleak.report"
fi
ktap_end
