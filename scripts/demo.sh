#!/bin/sh
# Build everything and boot the guest in mode `demo`, showing its console.
# Exits with the guest's status.
#
#   scripts/demo.sh         (OVPOP_OUT, OVPOP_TIMEOUT, OVPOP_KERNEL as in test.sh;
#                            OVPOP_ARCH: arm64, default, or arm)
set -eu

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

work=$(ovpop_workdir) || exit 1
log "demo: logs in $work"
image="" dtb="" initrd=""
ovpop_prepare "$work"
rc=0
"$here/qemu.sh" "$image" "$dtb" "$initrd" demo "$work/demo.console" || rc=$?
log "demo: console in $work/demo.console"
exit "$rc"
