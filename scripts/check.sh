#!/bin/sh
# Static checks: checkpatch --strict on the C sources, a W=1 build with
# sparse (C=2) of the module and the test modules against the rig kernel,
# and shellcheck on the scripts. Exits non-zero on any finding.
#
#   scripts/check.sh [KDIR]      default: the rig's cached 6.12 arm64 kernel
set -eu

here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
# shellcheck source=lib.sh
. "$here/lib.sh"

kdir=${1:-}
if [ -z "$kdir" ]; then
	sh "$here/deps.sh"
	kdir=$(sh "$here/kernel.sh" 6.12 arm64 | tail -n 1)
fi
src=$kdir/source
[ -d "$src" ] || src=$kdir
fail=0

log "check: checkpatch --strict"
# compat.h exists to compare kernel versions: only there are the two
# version-comparison warnings expected.
find "$repo/module" "$repo/tests/modules" "$repo/tests/kunit" \
	-name '*.[ch]' ! -name '*.mod.c' ! -name compat.h | sort |
	xargs "$src/scripts/checkpatch.pl" --strict --no-tree --terse --quiet -f ||
	fail=1
"$src/scripts/checkpatch.pl" --strict --no-tree --terse --quiet \
	--ignore LINUX_VERSION_CODE,CONSTANT_COMPARISON \
	-f "$repo/module/compat.h" || fail=1

log "check: W=1 C=2 build"
out=$(mktemp)
make -s -C "$repo" KDIR="$kdir" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- \
	OVPOP_TESTS=y W=1 C=2 >"$out" 2>&1 || fail=1
# Anything the build prints beyond kbuild's own progress lines is a finding
if grep -v -e '^make\[[0-9]*\]: \(Entering\|Leaving\)' \
	-e '^  [A-Z0-9]\+ *\(\[M\]\)\? ' "$out"; then
	fail=1
fi
rm -f "$out"

log "check: shellcheck"
sh "$here/lint.sh" || fail=1

[ "$fail" -eq 0 ] || die "check: FAILED"
log "check: clean"
