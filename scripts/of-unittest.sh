#!/bin/sh
# The kernel's own OF unittest (CONFIG_OF_UNITTEST) on the stock kernel and
# on the kernel with the overlay core's series (patches/VERSION/):
#
#   scripts/of-unittest.sh [VERSION]     default 6.12 (arm64)
#
# Builds (or finds in the cache) scripts/kernel.sh's variants "unittest"
# and "patched-unittest" (scripts/configs/arm64-unittest.config), boots
# each once in mode "boot" (nothing but the boot: the tests run at
# late_initcall) and prints each kernel's "N passed, M failed" from the
# "### dt-test ### end of unittest" line and each kernel's count of kernel
# reports (OVPOP_REPORT_ERE, lib.sh), then the failing tests of either
# that the other does not fail, and the overlay core's messages ("OF:
# overlay: " lines: the refusals of the unittest's bad overlays) that
# differ. Exits non-zero if a boot did not print the result, if the
# patched kernel passes fewer or other tests or fails one the stock one
# passes, reports more, or prints other messages.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

version=${1:-6.12}
work=$(ovpop_workdir) || exit 1
log "of-unittest: logs in $work"
rc=0
for v in unittest patched-unittest; do
	mkdir -p "$work/$v"
	OVPOP_VARIANT=$v OVPOP_KERNEL=$version ovpop_prepare "$work/$v" arm64 "$version"
	# the guest's own exit status does not matter: only the log does
	OVPOP_TIMEOUT=${OVPOP_TIMEOUT:-600} "$here/qemu.sh" "$image" "$dtb" "$initrd" \
		boot "$work/$v.console.raw" >/dev/null 2>&1 || true
	tr -d '\r' <"$work/$v.console.raw" >"$work/$v.console"
	# "[    1.23] ### dt-test ### FAIL of_unittest_x():123 ..." -> the rest
	sed -n 's/^.*### dt-test ### FAIL /FAIL /p' "$work/$v.console" |
		sort -u >"$work/$v.fails"
	# in the kernel's order, without the timestamps
	sed -n 's/^\[[ 0-9.]*\] *\(OF: overlay: .*\)$/\1/p' "$work/$v.console" \
		>"$work/$v.overlay"
	res=$(sed -n 's/^.*### dt-test ### end of unittest - //p' "$work/$v.console" | tail -n 1)
	if [ -z "$res" ]; then
		log "of-unittest: $v: no result line in $work/$v.console"
		rc=1
		res="no result"
	fi
	printf '%s: %s\n' "$v" "$res"
	# "N passed": the patched kernel must pass as many tests as the
	# stock one
	echo "${res%% passed*}" >"$work/$v.passed"
	# the kernel's reports (lib.sh): the unittest provokes some; the
	# patched kernel may not add any
	grep -cE "$OVPOP_REPORT_ERE" "$work/$v.console" >"$work/$v.reports" || true
done
echo "kernel reports: $(cat "$work/unittest.reports") (stock), $(cat "$work/patched-unittest.reports") (patched)"
if [ "$(cat "$work/patched-unittest.reports")" -gt "$(cat "$work/unittest.reports")" ]; then
	echo "the patched kernel reports more (WARNING, BUG, Oops, refcount) than the stock one"
	rc=1
fi
if [ "$(cat "$work/patched-unittest.passed")" != "$(cat "$work/unittest.passed")" ]; then
	echo "passed: $(cat "$work/unittest.passed") (stock), $(cat "$work/patched-unittest.passed") (patched)"
	rc=1
fi
if ! cmp -s "$work/unittest.fails" "$work/patched-unittest.fails"; then
	echo "failing only on the stock kernel:"
	comm -23 "$work/unittest.fails" "$work/patched-unittest.fails" | sed 's/^/  /'
	echo "failing only on the patched kernel:"
	comm -13 "$work/unittest.fails" "$work/patched-unittest.fails" | sed 's/^/  /'
	[ -z "$(comm -13 "$work/unittest.fails" "$work/patched-unittest.fails")" ] || rc=1
fi
echo "overlay core messages: $(wc -l <"$work/unittest.overlay") (stock), $(wc -l <"$work/patched-unittest.overlay") (patched)"
if ! cmp -s "$work/unittest.overlay" "$work/patched-unittest.overlay"; then
	echo "the overlay core's messages differ (stock -, patched +):"
	diff "$work/unittest.overlay" "$work/patched-unittest.overlay" | sed 's/^/  /' || true
	rc=1
fi
exit "$rc"
