#!/bin/sh
# The configfs "path" attribute: writing a name under /lib/firmware applies
# that overlay and reads back the name; a missing file fails the write
# itself, reads back empty and stays unapplied; writing path again on an
# applied item fails and changes nothing. Uses overlays/rtc.dtso from
# /lib/firmware/ovpop/.
here=$(dirname "$0")
# shellcheck source=ktap.sh
. "$here/ktap.sh"
# shellcheck source=ov.sh
. "$here/ov.sh"

item=iface-path
bad=iface-path-missing
node=/rtc@9010000
snap="$OV_TMP/iface-path.snap"

# shellcheck disable=SC2317 # run by ktap_end
cleanup() {
	ov_remove "$item" "$bad"
	rm -f "$snap"
}

ktap_begin iface-path
ktap_at_exit cleanup
ov_snapshot >"$snap"

ktap_check firmware_file [ -r /lib/firmware/ovpop/rtc.dtbo ]
ktap_check apply_path ov_apply_path "$item" ovpop/rtc.dtbo
ktap_eq path_reads_back ovpop/rtc.dtbo "$(cat "$OV_CFS/$item/path" 2>&1)"
check_bound device_created amba "$node" rtc-pl031

if echo ovpop/rtc.dtbo >"$OV_CFS/$item/path" 2>/dev/null; then
	ktap_fail rewrite_applied_fails "second write to path succeeded"
else
	ktap_ok rewrite_applied_fails
fi
ktap_eq still_applied applied "$(ov_status "$item")"
check_bound device_kept amba "$node" rtc-pl031

ktap_check remove ov_remove "$item"
check_gone device_removed "$node"

mkdir "$OV_CFS/$bad"
if echo ovpop/ovpop-no-such-overlay.dtbo >"$OV_CFS/$bad/path" 2>/dev/null; then
	ktap_fail missing_file_write_fails "write of a missing file name succeeded"
else
	ktap_ok missing_file_write_fails
fi
ktap_eq missing_file_path_empty "" "$(cat "$OV_CFS/$bad/path" 2>&1)"
ktap_eq missing_file_unapplied unapplied "$(ov_status "$bad")"
ktap_check remove_missing ov_remove "$bad"

check_snapshot nothing_left "$snap"
ktap_end
