#!/bin/sh
# The packaging test: `make install` / `modules_install` / `uninstall` and
# Debian's dkms (dkms.conf), against the rig's 6.12 arm64 kernel
# (scripts/kernel.sh), cross-built on this host. Nothing is installed into
# the host's own directories: make gets INSTALL_MOD_PATH and DESTDIR, dkms
# its --dkmstree, --sourcetree and --installtree, all below the work
# directory, and --no-depmod; at the end the test checks that
# /lib/modules/<rig release>, /var/lib/dkms and /usr/src are unchanged.
#
#   scripts/test-pkg.sh
#
# scripts/test.sh runs it as one case of the whole suite (or with
# OVPOP_PKG=1). Works on a copy of the tree (tracked and untracked files, not
# the build products), so the checkout's own build stays as it is.
# OVPOP_OUT: work/log directory (default a new $OVPOP_CACHE/runs/<timestamp>).
# dkms add and install need root; as another user the install checks are
# skipped (and said so).
#
# Checks:
#  make: after an OVPOP_TESTS=y build, `make install` (ARCH, CROSS_COMPILE
#    given) installs only ovpop.ko, to lib/modules/<release>/updates/, with
#    the rig kernel's vermagic and dkms.conf's version, listed by depmod, and
#    tools/ovl (if the tree has it) as usr/local/sbin/ovl, with its
#    parameter engine ovl-params next to it (tools/ovl-params, built for
#    arm64, static, with the kernel tree's libfdt);
#    `make modules_install INSTALL_MOD_DIR=extra` the module only, to extra/;
#    `make uninstall` removes both again (and a compressed ovpop.ko.xz);
#    `make install` with a KDIR without System.map (as distributions'
#    headers packages are, where the kernel's modules_install skips depmod)
#    still gets ovpop into modules.dep.
#  dkms: add, build (neither ARCH nor CROSS_COMPILE given: the Makefile takes
#    them from the kernel's .config), install, status, remove; the module
#    dkms built has the rig kernel's vermagic.
#  dkms skips (exit 77, "BUILD_EXCLUSIVE", no module) a kernel whose .config
#    lacks CONFIG_OF_OVERLAY, one without CONFIG_CONFIGFS_FS, and 5.15.
# Prints "ok   <check>" or "FAIL <check>" (with the log's tail) per check;
# the last line is "pkg: N passed, N failed"; exits non-zero on a failure.
set -u

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"
repo=$(dirname "$here")

work=$(ovpop_workdir) || exit 1
log "test-pkg: logs in $work"
"$here/deps.sh" arm64 || die "test-pkg: deps.sh failed"
command -v dkms >/dev/null || die "test-pkg: no dkms (scripts/deps.sh installs it)"
ovpop_arch arm64
cross=$ovpop_cross
kdir=$("$here/kernel.sh" 6.12 arm64 | tail -n 1)
[ -f "$kdir/include/config/kernel.release" ] || die "test-pkg: kernel.sh failed"
kver=$(cat "$kdir/include/config/kernel.release")
ver=$(sed -n 's/^PACKAGE_VERSION="\([^"]*\)"$/\1/p' "$repo/dkms.conf")
[ -n "$ver" ] || die "test-pkg: no PACKAGE_VERSION=\"...\" in $repo/dkms.conf"
# dkms would sign with /var/lib/dkms/mok.key (creating it) if it found the
# kernel's sign-file: point it at none. The environment must not choose the
# architecture: the Makefile's own choice is under test.
sign_file=/nonexistent
export sign_file
unset ARCH CROSS_COMPILE

# pass CHECK / fail CHECK LOG: one result (lib.sh's ovpop_pass/ovpop_fail),
# and LOG's tail on failure
pass() {
	ovpop_pass "$1"
}
fail() {
	if [ -n "${2:-}" ] && [ -f "$2" ]; then
		ovpop_fail "$1" "($2:)" "$(tail -n 15 "$2")"
	else
		ovpop_fail "$1"
	fi
}
# is WHAT GOT WANT: pass if equal, else fail naming both
is() {
	if [ "$2" = "$3" ]; then
		pass "$1"
	else
		fail "$1: got '$2', want '$3'"
	fi
}

# Host paths the test must not change (see the header)
stamp="$work/start.stamp"
: >"$stamp"
sleep 1 # -newer compares mtimes, in seconds on some filesystems

# --- a copy of the tree ----------------------------------------------------------
src="$work/ovpop"
rm -rf "$src"
mkdir -p "$src"
if git -C "$repo" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	(cd "$repo" && git ls-files -co --exclude-standard | while IFS= read -r f; do
		[ -f "$f" ] && printf '%s\n' "$f"
	done | tar -cf - -T -) | tar -C "$src" -xf -
else
	tar -C "$repo" --exclude=.git --exclude=./out --exclude='*.o' \
		--exclude='*.ko' --exclude='*.cmd' --exclude='*.mod' \
		--exclude='*.mod.c' --exclude=modules.order --exclude=Module.symvers \
		-cf - . | tar -C "$src" -xf -
fi
if [ ! -f "$src/Makefile" ] || [ ! -f "$src/dkms.conf" ]; then
	die "test-pkg: could not copy the tree to $src"
fi

# ko_checks LABEL KO: KO is an ovpop.ko for the rig kernel, of this version
ko_checks() {
	vm=$(modinfo -F vermagic "$2" 2>/dev/null)
	is "$1: vermagic names the kernel ($kver)" "${vm%% *}" "$kver"
	is "$1: vermagic names the arch (aarch64)" "${vm##* }" aarch64
	is "$1: modinfo version is dkms.conf's" "$(modinfo -F version "$2" 2>/dev/null)" "$ver"
}

# --- make install / modules_install / uninstall ----------------------------------
root="$work/root"
rm -rf "$root" "$work/root2"
mkmake() {
	make -C "$src" KDIR="$kdir" ARCH=arm64 CROSS_COMPILE="$cross" "$@"
}
# An earlier build with the test modules (what make test leaves) must not
# get them installed.
if mkmake -j2 OVPOP_TESTS=y modules >"$work/make-tests.log" 2>&1 &&
	[ -f "$src/tests/modules/ovpop_testdrv.ko" ]; then
	pass "make OVPOP_TESTS=y builds the test modules too"
else
	fail "make OVPOP_TESTS=y builds the test modules too" "$work/make-tests.log"
fi
if mkmake -j2 install INSTALL_MOD_PATH="$root" DESTDIR="$root" \
	>"$work/make-install.log" 2>&1; then
	pass "make install INSTALL_MOD_PATH=... DESTDIR=..."
else
	fail "make install INSTALL_MOD_PATH=... DESTDIR=..." "$work/make-install.log"
fi
# 6.12 lists DIR/ovpop.o, 6.1 DIR/ovpop.ko
mods=$(sed -e 's|.*/||' -e 's/\.k\{0,1\}o$//' "$src/modules.order" 2>/dev/null | tr '\n' ' ')
is "make (no OVPOP_TESTS): modules.order lists only ovpop" "$mods" "ovpop "
ko="$root/lib/modules/$kver/updates/ovpop.ko"
is "make install: the only module installed is updates/ovpop.ko" \
	"$(find "$root" -name '*.ko' | sort | tr '\n' ' ')" "$ko "
[ -f "$ko" ] && ko_checks "make install" "$ko"
if grep -q '^updates/ovpop\.ko:' "$root/lib/modules/$kver/modules.dep" 2>/dev/null; then
	pass "make install: depmod lists updates/ovpop.ko"
else
	fail "make install: depmod lists updates/ovpop.ko" "$work/make-install.log"
fi
ovl="$root/usr/local/sbin/ovl"
if [ -f "$src/tools/ovl" ]; then
	if [ -x "$ovl" ] && cmp -s "$src/tools/ovl" "$ovl" && [ -x "$ovl-params" ]; then
		pass "make install: tools/ovl as usr/local/sbin/ovl (0755), ovl-params next to it"
	else
		fail "make install: tools/ovl as usr/local/sbin/ovl (0755), ovl-params next to it" \
			"$work/make-install.log"
	fi
	# a cross install: the engine is built for the kernel's architecture
	# (static, with the kernel tree's libfdt), not for this host
	if readelf -h "$ovl-params" 2>/dev/null | grep -q 'Machine: *AArch64' &&
		! readelf -l "$ovl-params" | grep -q INTERP && "$ovl" help | grep -q 'ovl apply'; then
		pass "make install: ovl-params built for arm64 (static), ovl runs"
	else
		fail "make install: ovl-params built for arm64 (static), ovl runs" "$work/make-install.log"
	fi
else
	log "test-pkg: the tree has no tools/ovl; its installation is not checked"
fi

if mkmake modules_install INSTALL_MOD_PATH="$work/root2" DESTDIR="$work/root2" \
	INSTALL_MOD_DIR=extra >"$work/make-modules_install.log" 2>&1 &&
	[ -f "$work/root2/lib/modules/$kver/extra/ovpop.ko" ] &&
	[ "$(find "$work/root2" -type f -name '*.ko' -o -type f -path '*/sbin/*' | wc -l)" -eq 1 ]; then
	pass "make modules_install INSTALL_MOD_DIR=extra: only extra/ovpop.ko"
else
	fail "make modules_install INSTALL_MOD_DIR=extra: only extra/ovpop.ko" \
		"$work/make-modules_install.log"
fi

# as a kernel with CONFIG_MODULE_COMPRESS_XZ would have installed it
: >"$ko.xz"
if mkmake uninstall INSTALL_MOD_PATH="$root" DESTDIR="$root" \
	>"$work/make-uninstall.log" 2>&1 && [ ! -e "$ko" ] && [ ! -e "$ovl" ] && [ ! -e "$ovl-params" ] &&
	[ ! -e "$ko.xz" ] && ! grep -q 'ovpop\.ko' "$root/lib/modules/$kver/modules.dep"; then
	pass "make uninstall: module (.ko, .ko.xz), ovl and the depmod entry gone"
else
	fail "make uninstall: module (.ko, .ko.xz), ovl and the depmod entry gone" "$work/make-uninstall.log"
fi

# The kernel tree as a farm of links without System.map
nomap="$work/kdir-nomap"
rm -rf "$nomap" "$work/root3"
mkdir -p "$nomap"
for e in "$kdir"/* "$kdir"/.[!.]*; do
	[ "${e##*/}" = System.map ] || ln -s "$e" "$nomap/${e##*/}"
done
if make -C "$src" KDIR="$nomap" ARCH=arm64 CROSS_COMPILE="$cross" install \
	INSTALL_MOD_PATH="$work/root3" DESTDIR="$work/root3" >"$work/make-nomap.log" 2>&1 &&
	grep -q '^updates/ovpop\.ko:' "$work/root3/lib/modules/$kver/modules.dep"; then
	pass "make install, KDIR without System.map: depmod lists updates/ovpop.ko"
else
	fail "make install, KDIR without System.map: depmod lists updates/ovpop.ko" "$work/make-nomap.log"
fi

# --- dkms --------------------------------------------------------------------------
dk="$work/dkms"
rm -rf "$dk"
mkdir -p "$dk/tree" "$dk/src" "$dk/lib/modules/$kver"
# dkms ACTION ARGS...: the isolated trees, output appended to dkms.log
dlog="$work/dkms.log"
: >"$dlog"
dk() {
	printf '\n$ dkms %s\n' "$*" >>"$dlog"
	dkms "$@" --dkmstree "$dk/tree" --sourcetree "$dk/src" \
		--installtree "$dk/lib/modules" >>"$dlog" 2>&1
}
root_user=no
[ "$(id -u)" -eq 0 ] && root_user=yes

# As root, as a user would (dkms add DIR copies the tree); otherwise dkms
# only accepts an add from its source tree.
added=no
if [ "$root_user" = yes ]; then
	dk add "$src" && added=yes
else
	cp -R "$src" "$dk/src/ovpop-$ver" && dk add "ovpop/$ver" && added=yes
fi
if [ "$added" = yes ] && [ -f "$dk/src/ovpop-$ver/dkms.conf" ]; then
	pass "dkms add: ovpop/$ver"
else
	fail "dkms add: ovpop/$ver" "$dlog"
fi
built="$dk/tree/ovpop/$ver/$kver/arm64/module/ovpop.ko"
if dk build "ovpop/$ver" -k "$kver" -a arm64 --kernelsourcedir "$kdir" &&
	[ -f "$built" ]; then
	pass "dkms build -k $kver -a arm64 (cross, no ARCH/CROSS_COMPILE given)"
	ko_checks "dkms build" "$built"
	# the same sources as the module make built (its srcversion hashes them)
	is "dkms build: srcversion is that of the make-built module" \
		"$(modinfo -F srcversion "$built")" "$(modinfo -F srcversion "$src/ovpop.ko")"
else
	fail "dkms build -k $kver -a arm64 (cross, no ARCH/CROSS_COMPILE given)" "$dlog"
	mlog="$dk/tree/ovpop/$ver/build/make.log"
	[ -f "$mlog" ] && tail -n 20 "$mlog" | sed 's/^/     /'
fi

if [ "$root_user" = yes ]; then
	inst="$dk/lib/modules/$kver/updates/dkms/ovpop.ko"
	if dk install "ovpop/$ver" -k "$kver" -a arm64 --kernelsourcedir "$kdir" \
		--no-depmod && cmp -s "$built" "$inst"; then
		pass "dkms install: updates/dkms/ovpop.ko in the install tree"
	else
		fail "dkms install: updates/dkms/ovpop.ko in the install tree" "$dlog"
	fi
	st=$(dkms status ovpop --dkmstree "$dk/tree" --sourcetree "$dk/src" \
		--installtree "$dk/lib/modules" 2>&1)
	is "dkms status" "$st" "ovpop/$ver, $kver, arm64: installed"
else
	log "test-pkg: not root: dkms install not checked"
fi

# Kernels ovpop cannot work on: a .config without one of the options, and
# a release before 6.1. dkms reads only the .config before it decides.
# skipped LABEL KVER CONFIG-SED: dkms build must refuse with status 77
skipped() {
	fk="$work/kernel-$1"
	rm -rf "$fk"
	mkdir -p "$fk"
	sed "$3" "$kdir/.config" >"$fk/.config"
	if cmp -s "$kdir/.config" "$fk/.config" && [ -n "$3" ]; then
		fail "dkms skips a kernel $1: the test's sed changed nothing"
		return
	fi
	printf '\n$ dkms build -k %s (%s)\n' "$2" "$1" >>"$dlog"
	rc=0
	dkms build "ovpop/$ver" -k "$2" -a arm64 --kernelsourcedir "$fk" \
		--dkmstree "$dk/tree" --sourcetree "$dk/src" \
		--installtree "$dk/lib/modules" >"$fk/dkms.log" 2>&1 || rc=$?
	cat "$fk/dkms.log" >>"$dlog"
	if [ "$rc" -eq 77 ] && grep -q 'BUILD_EXCLUSIVE directive which does not match' "$fk/dkms.log" &&
		[ -z "$(find "$dk/tree" -path "*/$2/*" -name '*.ko')" ]; then
		pass "dkms skips a kernel $1 (exit 77, BUILD_EXCLUSIVE, no module)"
	else
		fail "dkms skips a kernel $1 (exit 77, BUILD_EXCLUSIVE, no module): exit $rc" "$fk/dkms.log"
	fi
}
skipped without-OF_OVERLAY "$kver-nooverlay" \
	's/^CONFIG_OF_OVERLAY=y$/# CONFIG_OF_OVERLAY is not set/'
skipped without-CONFIGFS_FS "$kver-noconfigfs" \
	's/^CONFIG_CONFIGFS_FS=[ym]$/# CONFIG_CONFIGFS_FS is not set/'
skipped before-6.1 5.15.0-ovpop ''

if dk remove "ovpop/$ver" --all && [ ! -e "$dk/tree/ovpop/$ver" ] &&
	[ -z "$(find "$dk/lib/modules" -name '*.ko')" ]; then
	pass "dkms remove --all: nothing left in the trees"
else
	fail "dkms remove --all: nothing left in the trees" "$dlog"
fi

# --- the host --------------------------------------------------------------------
changed=""
for p in "/lib/modules/$kver" /var/lib/dkms /usr/src; do
	[ -e "$p" ] || continue
	changed="$changed$(find "$p" -maxdepth 1 -newer "$stamp" 2>/dev/null | head -n 3)"
done
is "the host's /lib/modules/$kver, /var/lib/dkms, /usr/src unchanged" "$changed" ""

log "test-pkg: logs in $work"
printf 'pkg: %s\n' "$(ovpop_summary)"
[ "$ovpop_failed" -eq 0 ]
