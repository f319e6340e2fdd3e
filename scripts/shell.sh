#!/bin/sh
# Build everything and boot the guest to an interactive shell on the console
# (debugging). `exit` powers the guest off; Ctrl-A x quits QEMU.
#
#   scripts/shell.sh        (OVPOP_OUT, OVPOP_KERNEL as in test.sh;
#                            OVPOP_ARCH: arm64, default, or arm;
#                            OVPOP_BOARD: a board lane's machine and tree,
#                            e.g. raspi3b, or vexpress-a15 with arm)
set -eu

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

work=$(ovpop_workdir) || exit 1
log "shell: build in $work"
image="" dtb="" initrd=""
ovpop_prepare "$work"
exec "$here/qemu.sh" "$image" "$dtb" "$initrd" shell
