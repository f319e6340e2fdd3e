#!/bin/sh
# Boot the guest once in QEMU (virt, or the board of OVPOP_BOARD) and pass
# its result back.
#
#   scripts/qemu.sh IMAGE DTB INITRD MODE [LOG]
#
# MODE is the guest's ovpop_mode (test, control, demo, shell). The console is
# shown and copied to LOG (default: none). Except for MODE=shell (interactive,
# no timeout), stdin is not used and the boot is limited to OVPOP_TIMEOUT
# seconds (default 600). The exit status is the guest's ==OVPOP-EXIT rc==;
# without that marker, or after a kernel panic, it is non-zero with a message
# (124: timeout, 125: no marker, 126: panic).
# OVPOP_APPEND: extra kernel command line arguments; OVPOP_QEMU_EXTRA:
# extra QEMU options (scripts/bench.sh -i: instruction counting).
# OVPOP_ARCH (arm64, default, or arm) picks the QEMU binary and machine,
# OVPOP_BOARD the board (lib.sh); IMAGE, DTB and INITRD must be of that arch
# and board (ovpop_prepare).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

[ $# -eq 4 ] || [ $# -eq 5 ] || die "usage: $0 IMAGE DTB INITRD MODE [LOG]"
image=$1
dtb=$2
initrd=$3
mode=$4
log=${5:-}
timeout=${OVPOP_TIMEOUT:-600}
ovpop_arch
qemu=$ovpop_qemu

for f in "$image" "$dtb" "$initrd"; do
	[ -f "$f" ] || die "qemu: $f missing"
done
command -v "$qemu" >/dev/null || die "qemu: $qemu missing (scripts/deps.sh)"
case $timeout in
'' | *[!0-9]*) die "qemu: OVPOP_TIMEOUT must be a number of seconds" ;;
esac

# log_buf_len: the fuzzer's refusals must not push earlier lines out of
# the log before the guest dumps it.
append="console=$ovpop_console ovpop_off=$ovpop_off quiet loglevel=3 panic=-1 log_buf_len=16M ovpop_mode=$mode${OVPOP_APPEND:+ $OVPOP_APPEND}"
# a board's guest knows its board (run.sh runs its scenario-board-*.sh)
[ "${OVPOP_BOARD:-virt}" = virt ] || append="$append ovpop_board=$OVPOP_BOARD"

if [ "$mode" = shell ]; then
	log "qemu: interactive shell; Ctrl-A x quits QEMU, 'exit' powers the guest off"
	# shellcheck disable=SC2086 # OVPOP_QEMU_OPTS is a list of options
	exec "$qemu" -M "$OVPOP_QEMU_MACHINE" $OVPOP_QEMU_OPTS ${OVPOP_QEMU_EXTRA:-} \
		$ovpop_qemu_io -no-reboot \
		-kernel "$image" -dtb "$dtb" -initrd "$initrd" -append "$append"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -n "$log" ] || log="$tmp/console.log"
mkdir -p "$(dirname "$log")"

start=$(date +%s)
# No stdin (CI has none); -no-reboot turns panic=-1's reboot into an exit.
# timeout --foreground: QEMU stays in our process group, where an
# interrupt (and test.sh's kill of a background pair's session) reaches
# it; without it, timeout moves itself and QEMU to a group of their own.
# The pipe to tee loses QEMU's status: keep it in a file.
{
	rc=0
	# shellcheck disable=SC2086
	timeout --foreground -k 10 "$timeout" "$qemu" -M "$OVPOP_QEMU_MACHINE" \
		$OVPOP_QEMU_OPTS ${OVPOP_QEMU_EXTRA:-} $ovpop_qemu_io -no-reboot \
		-kernel "$image" -dtb "$dtb" -initrd "$initrd" -append "$append" \
		</dev/null 2>&1 || rc=$?
	echo "$rc" >"$tmp/qemu.rc"
} | tee "$log"
qrc=$(cat "$tmp/qemu.rc")
secs=$(($(date +%s) - start))

exitline=$(tr -d '\r' <"$log" | sed -n 's/.*==OVPOP-EXIT \([0-9][0-9]*\)==.*/\1/p' | tail -n 1)
if [ "$qrc" -eq 124 ] || [ "$qrc" -eq 137 ]; then
	log "qemu: TIMEOUT after ${timeout}s (mode $mode); console in $log"
	exit 124
fi
if grep -q 'Kernel panic - not syncing' "$log"; then
	log "qemu: kernel panic (mode $mode, qemu exit $qrc, ${secs}s); console in $log"
	exit 126
fi
if [ -z "$exitline" ]; then
	log "qemu: no ==OVPOP-EXIT rc== marker: the guest crashed or QEMU failed (mode $mode, qemu exit $qrc, ${secs}s); console in $log"
	exit 125
fi
log "qemu: mode $mode: guest exit $exitline after ${secs}s"
exit "$exitline"
