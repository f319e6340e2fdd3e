#!/bin/sh
# Broken overlays (overlays/broken/*.dtso, see each file's header for why it
# must fail): written to dtbo, each must leave its item "unapplied" and the
# live tree and devices exactly as they were, also after the rmdir. Broken
# overlays that dtc itself rejects have no blob and are not run here.
here=$(dirname "$0")
# shellcheck source=ktap.sh
. "$here/ktap.sh"
# shellcheck source=lib.sh
. "$here/lib.sh"

dir=$OVPOP_DIR/overlays/broken
snap="$OV_TMP/iface-broken.snap"
now="$OV_TMP/iface-broken.now"
item=

# shellcheck disable=SC2317 # run by ktap_end
cleanup() {
	[ -n "$item" ] && ov_remove "$item"
	rm -f "$snap" "$now"
}

ktap_begin iface-broken
ktap_at_exit cleanup
ov_snapshot >"$snap"

n=0
for f in "$dir"/*.dtbo; do
	[ -r "$f" ] && n=$((n + 1))
done
ktap_check broken_overlays_present [ "$n" -ge 4 ]

# The kernel logs why it refuses each one (OF: overlay:, OF: resolver:, the
# loader's own messages): errors, none of them a report the host flags, so
# no OVPOP-EXPECT here.

for f in "$dir"/*.dtbo; do
	[ -r "$f" ] || continue
	name=${f##*/}
	name=${name%.dtbo}
	item=broken-$name
	ktap_diag "applying $name"
	if ov_apply_dtbo "$item" "$f" 2>/dev/null; then
		ktap_fail "${name}_refused" "status applied"
	else
		ktap_eq "${name}_refused" unapplied "$(ov_status "$item")"
	fi
	# The state, but for the item itself, must be as before.
	ov_snapshot | grep -v "^configfs $item\$" >"$now"
	if cmp -s "$snap" "$now"; then
		ktap_ok "${name}_nothing_applied"
	else
		ktap_fail "${name}_nothing_applied" "state differs: $(diff "$snap" "$now" |
			grep '^[-+][^-+]' | head -n 8 | tr '\n' ' ')"
	fi
	ktap_check "${name}_rmdir" ov_remove "$item"
	item=
done

check_snapshot nothing_left "$snap"
ktap_end
