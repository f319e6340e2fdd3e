#!/bin/sh
# The configfs interface (tests/CONTRACT.md): an item reads "unapplied"
# until a blob is written to dtbo, "applied" after; mkdir/rmdir without an
# apply changes nothing; rmdir of an applied item removes the overlay; the
# same name can be applied again after that. Uses overlays/rtc.dtso.
here=$(dirname "$0")
# shellcheck source=ktap.sh
. "$here/ktap.sh"
# shellcheck source=ov.sh
. "$here/ov.sh"

item=iface-configfs
node=/rtc@9010000
snap="$OV_TMP/iface-configfs.snap"

# shellcheck disable=SC2317 # run by ktap_end
cleanup() {
	ov_remove "$item"
	rm -f "$snap"
}

ktap_begin iface-configfs
ktap_at_exit cleanup
ov_snapshot >"$snap"

ktap_check configfs_present [ -d "$OV_CFS" ]

ktap_check mkdir mkdir "$OV_CFS/$item"
ktap_eq new_item_status unapplied "$(ov_status "$item")"
ktap_eq new_item_path "" "$(cat "$OV_CFS/$item/path" 2>&1)"
ktap_check dtbo_attribute [ -e "$OV_CFS/$item/dtbo" ]
ktap_check rmdir_unapplied ov_remove "$item"
check_snapshot mkdir_rmdir_harmless "$snap"

ktap_check apply ov_apply_dtbo "$item" "$OVPOP_DIR/overlays/rtc.dtbo"
ktap_eq status_applied applied "$(ov_status "$item")"
check_dt node_added "$node" yes
check_bound device_created amba "$node" rtc-pl031

ktap_check rmdir_applied ov_remove "$item"
ktap_check item_gone [ ! -e "$OV_CFS/$item" ]
check_dt node_removed "$node" no
check_gone device_removed "$node"

ktap_check reapply ov_apply_dtbo "$item" "$OVPOP_DIR/overlays/rtc.dtbo"
check_bound device_recreated amba "$node" rtc-pl031
ktap_check remove_again ov_remove "$item"
check_gone device_removed_again "$node"

check_snapshot nothing_left "$snap"
ktap_end
