#!/bin/sh
# Find (or fetch) the Debian kernel source tarball for a kernel version.
#
#   scripts/kernel-source.sh VERSION
#
# The last stdout line is the tarball's path; progress goes to stderr.
#
#   6.1, 6.12  /usr/src/linux-source-VERSION.tar.xz, from Debian 12's own
#              linux-source-VERSION package (installed by scripts/deps.sh);
#              missing is an error, this script installs nothing.
#   7.3        $OVPOP_CACHE/src/linux-source-7.3.tar.xz, taken from Debian's
#              linux-source-7.3 package in trixie-backports. The package is
#              downloaded, never installed, with a private apt configuration
#              under $OVPOP_CACHE/apt: its own sources list, lists, cache and
#              (empty) dpkg status. Nothing in the host's /etc/apt is
#              written, and of its configuration only an apt proxy is used.
#              The archive's signature is checked with the host's Debian
#              archive keyring (bookworm's debian-archive-keyring holds the
#              trixie keys).
#
# A tarball already in place is printed and nothing else is done.
# OVPOP_DEBIAN_MIRROR overrides the mirror (default http://deb.debian.org/debian).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

[ $# -eq 1 ] || die "usage: $0 VERSION"
version=$1

case $version in
6.1 | 6.12)
	tarball="/usr/src/linux-source-$version.tar.xz"
	[ -f "$tarball" ] ||
		die "kernel-source: $tarball missing: install Debian's linux-source-$version (scripts/deps.sh, or apt-get install linux-source-$version)"
	printf '%s\n' "$tarball"
	exit 0
	;;
7.3) suite=trixie-backports ;;
*) die "kernel-source: no known source for kernel '$version' (6.1, 6.12, 7.3)" ;;
esac

pkg="linux-source-$version"
tarball="$OVPOP_CACHE/src/$pkg.tar.xz"
if [ -f "$tarball" ]; then
	printf '%s\n' "$tarball"
	exit 0
fi

mirror=${OVPOP_DEBIAN_MIRROR:-http://deb.debian.org/debian}
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -f "$keyring" ] || die "kernel-source: $keyring missing (apt-get install debian-archive-keyring)"
# By path: busybox sh would run its own dpkg and dpkg-deb applets.
dpkg=$(ovpop_path_tool dpkg) || die "kernel-source: dpkg missing"
dpkgdeb=$(ovpop_path_tool dpkg-deb) || die "kernel-source: dpkg-deb missing"
for t in apt-get apt-cache apt-config flock; do
	command -v "$t" >/dev/null || die "kernel-source: $t missing"
done

apt="$OVPOP_CACHE/apt"
mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$OVPOP_CACHE/src"

# One fetch at a time per cache (others wait, then find the tarball).
exec 9>"$apt/.lock"
if ! flock -n 9; then
	log "kernel-source: another fetch holds $apt/.lock; waiting"
	flock 9
fi
if [ -f "$tarball" ]; then
	printf '%s\n' "$tarball"
	exit 0
fi

# --- private apt configuration ------------------------------------------------
# apt reads $APT_CONFIG before the host's apt.conf.d and apt.conf: pointing
# those at /dev/null here keeps the host's hooks (APT::Update::Post-Invoke*)
# and settings out. Only the host's apt proxy, if any, is carried over.
arch=$("$dpkg" --print-architecture)
printf 'deb [arch=%s signed-by=%s] %s %s main\n' "$arch" "$keyring" "$mirror" "$suite" \
	>"$apt/sources.list"
: >"$apt/status"
cat >"$apt/apt.conf" <<'EOF'
// ovpop: private apt configuration for scripts/kernel-source.sh
Dir::Etc::Parts "/dev/null";
Dir::Etc::Main "/dev/null";
EOF
proxy_http=$(apt-config dump --no-empty --format '%v%n' Acquire::http::Proxy 2>/dev/null || true)
proxy_https=$(apt-config dump --no-empty --format '%v%n' Acquire::https::Proxy 2>/dev/null || true)

# Everything else on the command line, as options.
papt() {
	_cmd=$1
	shift
	APT_CONFIG="$apt/apt.conf" "$_cmd" \
		-o Dir::Etc::SourceList="$apt/sources.list" \
		-o Dir::Etc::SourceParts=/dev/null \
		-o Dir::Etc::Preferences=/dev/null \
		-o Dir::Etc::PreferencesParts=/dev/null \
		-o Dir::Etc::Trusted=/dev/null \
		-o Dir::Etc::TrustedParts=/dev/null \
		-o Dir::State="$apt" \
		-o Dir::State::Lists="$apt/lists" \
		-o Dir::State::status="$apt/status" \
		-o Dir::Cache="$apt/cache" \
		-o APT::Sandbox::User="$(id -un)" \
		-o Acquire::Languages=none \
		${proxy_http:+-o Acquire::http::Proxy="$proxy_http"} \
		${proxy_https:+-o Acquire::https::Proxy="$proxy_https"} \
		"$@"
}

log "kernel-source: $pkg from $mirror $suite (private apt in $apt)"
papt apt-get -q --error-on=any update >"$apt/update.log" 2>&1 || {
	cat "$apt/update.log" >&2
	die "kernel-source: apt-get update of $suite failed"
}
ver=$(papt apt-cache policy "$pkg" 2>/dev/null | sed -n 's/^ *Candidate: *//p')
case $ver in
'' | '(none)') die "kernel-source: $pkg is not in $suite" ;;
esac

# --- download and extract -------------------------------------------------------
tmp="$apt/fetch.$$"
rm -rf "$tmp"
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM HUP
log "kernel-source: downloading $pkg $ver"
(cd "$tmp" && papt apt-get -q download "$pkg=$ver") >"$apt/download.log" 2>&1 || {
	cat "$apt/download.log" >&2
	die "kernel-source: apt-get download $pkg=$ver failed"
}
deb=
for f in "$tmp/${pkg}_"*.deb; do
	[ -f "$f" ] && deb=$f
done
[ -n "$deb" ] || die "kernel-source: apt-get download left no $pkg .deb"

"$dpkgdeb" -x "$deb" "$tmp/x" || die "kernel-source: cannot extract $deb"
[ -f "$tmp/x/usr/src/$pkg.tar.xz" ] || die "kernel-source: $deb has no /usr/src/$pkg.tar.xz"
printf '%s %s\n' "$pkg" "$ver" >"$tarball.package"
mv "$tmp/x/usr/src/$pkg.tar.xz" "$tarball"
log "kernel-source: $pkg $ver -> $tarball"
printf '%s\n' "$tarball"
