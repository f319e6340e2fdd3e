#!/bin/sh
# Lint the rig and the guest scripts: shellcheck (POSIX sh) and busybox sh -n.
#
#   scripts/lint.sh
set -u

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"
repo=$(dirname "$here")
cd "$repo" || die "lint: cannot cd to $repo"

command -v shellcheck >/dev/null || die "lint: shellcheck missing (scripts/deps.sh)"
command -v busybox >/dev/null || die "lint: busybox missing (scripts/deps.sh)"

bad=0
n=0
files=""
for f in scripts/*.sh scripts/lib.sh tools/ovl tests/guest/*.sh tests/guest/init tests/params/*.sh; do
	[ -f "$f" ] || continue
	case " $files " in
	*" $f "*) continue ;; # scripts/lib.sh matches twice
	esac
	files="$files $f"
	n=$((n + 1))
	# .shellcheckrc at the top lets it follow "# shellcheck source=lib.sh".
	shellcheck -s sh "$f" || bad=$((bad + 1))
	busybox sh -n "$f" || {
		log "lint: busybox sh -n $f failed"
		bad=$((bad + 1))
	}
done
if [ "$bad" -ne 0 ]; then
	log "lint: $bad problem(s) in $n file(s)"
	exit 1
fi
log "lint: $n file(s) clean"
