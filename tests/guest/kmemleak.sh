#!/bin/sh
# The kmemleak scan at the end of the debug lane's run: run.sh cleared the
# suspects of the boot after loading the modules, so what is reported here
# leaked during the tests. Two scans (ov.sh's ov_kmemleak); every suspect
# fails the case, with its first lines as diagnostics (the host's log scan
# sees the count too). One exception: if faults.sh's build sweep made the
# kernel leak changeset nodes (it checked and cleared those it saw), one
# found unreferenced only now is counted apart, as the kernel's.
here=$(dirname "$0")
# shellcheck source=ktap.sh
. "$here/ktap.sh"
# shellcheck source=ov.sh
. "$here/ov.sh"

k=/sys/kernel/debug/kmemleak
kleak='kmemleak: [0-9]+ new suspected memory leaks'
report=$OV_TMP/kmemleak.report

ktap_begin kmemleak
if [ ! -w "$k" ]; then
	ktap_skip no_leaks "no $k (kernel without DEBUG_KMEMLEAK)"
	ktap_end
fi
kernels=
if [ -f "$OV_TMP/faults-build-sweep" ]; then
	kernels=1
	expect_kmsg "$kleak"
fi
if ! leaks=$(ov_kmemleak "$report"); then
	ktap_fail no_leaks "a kmemleak scan was refused: kmemleak disabled itself (the log says why)"
	[ -z "$kernels" ] || expect_kmsg_end "$kleak"
	ktap_end
fi
# shellcheck disable=SC2086 # two numbers
set -- $leaks
[ -n "$kernels" ] || set -- "$1" 0
ktap_diag "leaks: $1, $2 of them the kernel's from faults.sh's build sweep"
if [ "$1" -eq "$2" ]; then
	ktap_ok no_leaks
else
	ktap_fail no_leaks "$(($1 - $2)) suspected leak(s)"
	ktap_diag_file "$report" 80
fi
rm -f "$report"
[ -z "$kernels" ] || expect_kmsg_end "$kleak"
ktap_end
