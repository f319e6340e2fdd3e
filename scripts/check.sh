#!/bin/sh
# Static checks. Exits non-zero on any finding.
#
#   scripts/check.sh style       checkpatch --strict on the C sources, with
#                                the 6.12 tree's checkpatch, shellcheck, and
#                                kernel-doc: docs/api.rst up to date
#                                (scripts/api-doc.sh --check), and no
#                                call cycle between the module's files
#                                (scripts/callgraph.sh)
#   scripts/check.sh build KDIR  a W=1 build of the module and the test
#                                modules against KDIR (arch: OVPOP_ARCH),
#                                with sparse (C=2) where the host's sparse
#                                can check that kernel, and a W=1 build of
#                                the module for the benchmark
#                                (OVPOP_TIMING=y)
#   scripts/check.sh             both, against the rig's 6.12 arm64 kernel
#
# checkpatch comes from one kernel, 6.12: newer ones suggest APIs that the
# older kernels ovpop supports lack (7.3: kzalloc_obj()).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
# shellcheck source=lib.sh
. "$here/lib.sh"

# The 6.12 tree's checkpatch.pl and the files it reads, from the tarball
checkpatch_dir() {
	cp_dir="$OVPOP_CACHE/checkpatch-6.12"
	if [ ! -x "$cp_dir/scripts/checkpatch.pl" ]; then
		cp_tar=$("$here/kernel-source.sh" 6.12 | tail -n 1)
		rm -rf "$cp_dir"
		mkdir -p "$cp_dir"
		tar -xJf "$cp_tar" -C "$cp_dir" --strip-components=1 \
			linux-source-6.12/scripts/checkpatch.pl \
			linux-source-6.12/scripts/spelling.txt \
			linux-source-6.12/scripts/const_structs.checkpatch
	fi
	printf '%s\n' "$cp_dir"
}

check_style() {
	cp=$(checkpatch_dir)/scripts/checkpatch.pl
	rc=0
	log "check: checkpatch --strict (6.12)"
	# compat.h exists to compare kernel versions: only there (and in the
	# test modules' ovpop_test_compat.h) are the two version-comparison
	# warnings expected; tools/ovl-params has its own compat.h (below).
	find "$repo/module" "$repo/tests/modules" "$repo/tests/kunit" "$repo/samples" "$repo/tools" \
		-name '*.[ch]' ! -name '*.mod.c' ! -name compat.h \
		! -name ovpop_test_compat.h | sort |
		xargs "$cp" --strict --no-tree --terse --quiet -f || rc=1
	"$cp" --strict --no-tree --terse --quiet \
		--ignore LINUX_VERSION_CODE,CONSTANT_COMPARISON \
		-f "$repo/module/compat.h" "$repo/tests/modules/ovpop_test_compat.h" || rc=1
	# ovl-params' compat.h defines the kernel's spellings for user space
	"$cp" --strict --no-tree --terse --quiet \
		--ignore PREFER_DEFINED_ATTRIBUTE_MACRO,PREFER_KERNEL_TYPES \
		-f "$repo/tools/ovl-params/compat.h" || rc=1
	log "check: the module's files call each other in one direction"
	"$here/callgraph.sh" >/dev/null || rc=1
	log "check: shellcheck"
	"$here/lint.sh" || rc=1
	log "check: kernel-doc and docs/api.rst"
	"$here/api-doc.sh" --check || rc=1
	return $rc
}

# Prints what a build printed beyond kbuild's own progress lines
build_findings() {
	grep -v -e '^make\[[0-9]*\]: \(Entering\|Leaving\)' \
		-e '^  [A-Z0-9]\+ *\(\[M\]\)\? ' "$1"
}

check_build() {
	ovpop_arch
	out=$(mktemp)
	src=$(mktemp -d)
	log "check: W=1 C=2 build against $1 ($OVPOP_ARCH)"
	rc=0
	ovpop_module_copy "$src" >/dev/null || rc=1
	make -s -C "$src" KDIR="$1" ARCH="$OVPOP_ARCH" \
		CROSS_COMPILE="$ovpop_cross" OVPOP_TESTS=y W=1 C=2 \
		>"$out" 2>&1 || rc=1
	# and the benchmark's build (module/internal.h's OVPOP_TIMING), W=1
	make -s -C "$src" KDIR="$1" ARCH="$OVPOP_ARCH" clean >/dev/null 2>&1
	make -s -C "$src" KDIR="$1" ARCH="$OVPOP_ARCH" \
		CROSS_COMPILE="$ovpop_cross" OVPOP_TIMING=y W=1 \
		>>"$out" 2>&1 || rc=1
	rm -rf "$src"
	if grep -q 'sparse is not available or not up to date' "$out"; then
		# 7.3's checker needs __typeof_unqual__, newer than Debian 12's
		log "check: the host's sparse cannot check this kernel: W=1 only"
		sed -i '/sparse is not available or not up to date/d' "$out"
	fi
	if build_findings "$out"; then
		rc=1
	fi
	rm -f "$out"
	return $rc
}

case ${1:-all} in
style)
	check_style || die "check: style FAILED"
	;;
build)
	[ $# -eq 2 ] || die "usage: $0 build KDIR"
	check_build "$2" || die "check: build FAILED"
	;;
all)
	"$here/deps.sh"
	kdir=$("$here/kernel.sh" 6.12 arm64 | tail -n 1)
	fail=0
	check_style || fail=1
	OVPOP_ARCH=arm64 check_build "$kdir" || fail=1
	[ "$fail" -eq 0 ] || die "check: FAILED"
	;;
*) die "usage: $0 [style | build KDIR]" ;;
esac
log "check: clean"
