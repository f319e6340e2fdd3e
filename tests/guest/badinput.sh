#!/bin/sh
# Bad input: every blob of the corpus is written to a new item's dtbo and
# must be refused: status "unapplied", a message in "error", the live tree
# and the devices exactly as before (values included), and the rmdir must
# work. The corpus:
# - overlays/broken/*.dtso (each header says why it must fail; those dtc
#   itself rejects have no blob and are not run here);
# - the kernel's negative overlays, drivers/of/unittest-data/overlay_bad_*;
# - malformed blobs made from overlays/fuzz-seed.dtso by ovpop-tool corpus
#   (truncated, bad magic, sizes, offsets, tokens, empty, oversize, ...).
# Also path: a name outside the firmware search path, a missing file.
# The debug lane compares the state once, after the last case (a snapshot
# there takes seconds; the other lanes compare after every case).
# Prints "# bad inputs: N refused, N not" and the memory figures; Slab may
# grow by at most 1 MiB (ov_check_slab).
here=$(dirname "$0")
# shellcheck source=ktap.sh
. "$here/ktap.sh"
# shellcheck source=ov.sh
. "$here/ov.sh"

gen="$OV_TMP/badinput"
snap="$OV_TMP/badinput.snap"
item=

# shellcheck disable=SC2317 # run by ktap_end
cleanup() {
	[ -n "$item" ] && ov_remove "$item"
	rm -rf "$gen" "$snap" /lib/firmware/ovpop-empty.dtbo
	ov_console_restore
}

ktap_begin badinput
ktap_at_exit cleanup
mkdir -p "$gen"
max=$(cat /sys/module/ovpop/parameters/max_size)
ktap_check corpus_generated "$OVPOP_DIR/bin/ovpop-tool" corpus \
	"$OVPOP_DIR/overlays/fuzz-seed.dtbo" "$gen" "$max"
ov_snapshot >"$snap"
mem0=$(ov_mem)
# every refusal logs an error; the debug lane's console would show them all
ov_console_quiet

# mark CASE: a line in the kernel's log before CASE's write
mark() {
	echo "ovpop-badinput: <$1>" >/dev/kmsg
}

# kernel_says CASE: the OF core's messages since CASE's mark, one
# diagnostic line each ("CASE: kernel: OF: overlay: ..."): scripts/test.sh
# compares them between the stock and the patched kernel
kernel_says() {
	# only the virt lanes' test boots are compared; the debug lane's log
	# is long and its guest slow
	[ "${OV_LANE:-}" != debug ] || return 0
	says=$(dmesg | awk -v m="ovpop-badinput: <$1>" '
		index($0, m) { on = 1; buf = ""; next }
		on && /^\[[^]]*\] OF: / { sub(/^\[[^]]*\] /, ""); buf = buf $0 "\n" }
		END { printf "%s", buf }')
	[ -n "$says" ] || return 0
	while IFS= read -r l; do
		ktap_diag "$1: kernel: $l"
	done <<EOF
$says
EOF
}

# refuse CASE: the item "$item" exists and its dtbo was written
refuse() {
	st=$(ov_status "$item")
	err=$(cat "$OV_CFS/$item/error" 2>/dev/null)
	if [ "$st" != unapplied ]; then
		ktap_fail "${1}_refused" "status $st"
	elif ! printf '%s\n' "$err" | grep -Eq '^-(E[A-Z0-9]+|[0-9]+): .'; then
		ktap_fail "${1}_refused" "no message in error: '$err'"
	else
		ktap_ok "${1}_refused"
		good=$((good + 1))
		ktap_diag "$1: $err"
		kernel_says "$1"
		return 0
	fi
	bad=$((bad + 1))
}

# unchanged CASE: the state, but for the item itself, is as before
unchanged() {
	if [ "${OV_LANE:-}" = debug ]; then
		:
	elif d=$(ov_snapshot_diff "$snap" "configfs $item"); then
		ktap_ok "${1}_nothing_changed"
	else
		ktap_fail "${1}_nothing_changed" "state differs: $d"
	fi
	ktap_check "${1}_rmdir" ov_remove "$item"
	item=
}

good=0
bad=0
n=0
for f in "$OVPOP_DIR"/overlays/broken/*.dtbo "$OVPOP_DIR"/overlays/kernel-bad/*.dtbo \
	"$gen"/*.dtbo; do
	[ -r "$f" ] || continue
	n=$((n + 1))
	name=${f%.dtbo}
	name=${name##*/}
	case $f in
	*/kernel-bad/*) name=kernel-$name ;;
	"$gen"/*) name=blob-$name ;;
	esac
	item=bad-$n
	mkdir "$OV_CFS/$item" || break
	mark "$name"
	cat "$f" >"$OV_CFS/$item/dtbo" 2>/dev/null
	if [ -s "$f" ]; then
		refuse "$name"
	else
		# no write(): configfs never calls the loader; path below
		ktap_eq "${name}_unapplied" unapplied "$(ov_status "$item")"
		good=$((good + 1))
	fi
	unchanged "$name"
done
ktap_check corpus_size [ "$n" -ge 30 ]

# path: the write itself fails, and error says why
: >/lib/firmware/ovpop-empty.dtbo
for p in ../etc/passwd /ovpop/overlays/rtc.dtbo ovpop/../../x ovpop/no-such.dtbo \
	ovpop-empty.dtbo; do
	n=$((n + 1))
	item=bad-$n
	mkdir "$OV_CFS/$item" || break
	name=path-$(printf '%s' "$p" | tr -c 'a-z0-9\n' _)
	mark "$name"
	if echo "$p" >"$OV_CFS/$item/path" 2>/dev/null; then
		ktap_fail "${name}_write_fails" "the write succeeded"
	else
		ktap_ok "${name}_write_fails"
	fi
	ktap_eq "${name}_reads_empty" "" "$(cat "$OV_CFS/$item/path")"
	refuse "$name"
	unchanged "$name"
done

ov_console_restore
if [ "${OV_LANE:-}" = debug ]; then
	if d=$(ov_snapshot_diff "$snap"); then
		ktap_ok all_nothing_changed
	else
		ktap_fail all_nothing_changed "state differs: $d"
	fi
fi
mem1=$(ov_mem)
ktap_diag "bad inputs: $good refused, $bad not (of $n)"
ktap_diag "memory (MemAvailable Slab, KiB): before $mem0, after $mem1"
ov_check_slab slab_within_1MiB "$mem0" "$mem1"
ktap_end
