#!/bin/sh
# tools/ovl, as /usr/bin/ovl in the guest: every command and its exit
# status. apply by name (through "path") and by file (through "dtbo"), "as
# ITEM", parameters of every kind changing the live tree
# (overlays/param-regulator.dtso), unknown parameters and bad values refused
# with nothing changed, a failing apply leaving no item, list and show (every
# device and its driver, as sysfs has them), remove, remove --all with
# stacked overlays in any mtime order, params, check (good, with
# parameters, broken), usage errors, and list/show against a loader without
# "devices" and "error" attributes (Raspberry Pi's).
here=$(dirname "$0")
# shellcheck source=ktap.sh
. "$here/ktap.sh"
# shellcheck source=ov.sh
. "$here/ov.sh"

snap="$OV_TMP/iface-ovl.snap"
out="$OV_TMP/iface-ovl.out"
err="$OV_TMP/iface-ovl.err"
fake="$OV_TMP/iface-ovl.cfs"
reg=/regulator-ovl-param
rdt=/proc/device-tree$reg

# shellcheck disable=SC2317 # run by ktap_end
cleanup() {
	ov_remove param-regulator addon-board myrtc rtc existing-bus-children \
		existing-bus bad-path
	rm -rf "$snap" "$out" "$err" "$fake"
}

# run CMD...: runs ovl, stdout in $out, stderr in $err, status in $rc
run() {
	rc=0
	ovl "$@" >"$out" 2>"$err" || rc=$?
}

# eq_rc CASE WANT: the last run's status, with its stderr if it differs
eq_rc() {
	if [ "$rc" -eq "$2" ]; then
		ktap_ok "$1"
		return 0
	fi
	ktap_fail "$1" "exit $rc, want $2: $(head -c 300 "$err")"
	return 1
}

hexof() { # FILE: its bytes as one hex string
	od -A n -t x1 "$1" 2>/dev/null | tr -d ' \n'
}

# the regulator class device named NAME: its directory, or fails
regulator_named() {
	for r in /sys/class/regulator/*; do
		[ "$(cat "$r/name" 2>/dev/null)" = "$1" ] && echo "$r" && return 0
	done
	return 1
}

ktap_begin iface-ovl
ktap_at_exit cleanup
expect_kmsg 'OF: overlay: WARNING: memory leak will occur if overlay removed, property: /__symbols__/'
ov_snapshot >"$snap"

# one name at a time: busybox's and dash's command -v look at the first only
for t in ovl dtc fdtget fdtput fdtoverlay; do
	ktap_check "tool_on_path_$t" command -v "$t" >/dev/null
done
run help
eq_rc help_exit_0 0
ktap_check help_usage grep -q 'ovl apply' "$out"

# --- usage and lookup errors ------------------------------------------------------
run
eq_rc no_command_exit_2 2
run frob
eq_rc bad_command_exit_2 2
run apply
eq_rc apply_no_arg_exit_2 2
# a bare word is a parameter set to "true" (as dtoverlay); rtc has none
run apply rtc notaparam
eq_rc apply_bare_word_no_params_exit_3 3
ktap_check apply_bare_word_says grep -q 'no parameters' "$err"
run apply ovpop-no-such-overlay
eq_rc apply_unknown_name_exit_3 3
ktap_check apply_unknown_name_says grep -q 'OVL_PATH' "$err"
run show ovpop-no-such-item
eq_rc show_missing_exit_3 3
run remove ovpop-no-such-item
eq_rc remove_missing_exit_3 3
check_snapshot usage_errors_change_nothing "$snap"

# --- apply by name, show, list, remove ----------------------------------------------
run apply addon-board
eq_rc apply_by_name 0
ktap_eq apply_by_name_status applied "$(ov_status addon-board)"
ktap_eq by_name_through_path ovpop/addon-board.dtbo "$(cat "$OV_CFS/addon-board/path" 2>&1)"
check_bound addon_gpio_bound amba /addon-bus@9030000/gpio@0 pl061_gpio
check_bound addon_leds_bound platform /addon-bus@9030000/leds leds-gpio
check_bound addon_reg_bound platform /addon-bus@9030000/regulator-addon-3v3 reg-fixed-voltage

run show addon-board
eq_rc show_exit_0 0
ktap_check show_status grep -qx 'status:  applied' "$out"
ktap_check show_error_none grep -qx 'error:   none' "$out"
# every device of the overlay's nodes, as sysfs has them, named with its driver
ndev=0
nbound=0
for node in /addon-bus@9030000 /addon-bus@9030000/gpio@0 \
	/addon-bus@9030000/leds /addon-bus@9030000/regulator-addon-3v3; do
	for bus in platform amba; do
		dev=$(dev_of_node "$bus" "$node") || continue
		ndev=$((ndev + 1))
		drv=$(driver_of "$bus" "$dev")
		[ -n "$drv" ] && nbound=$((nbound + 1))
		ktap_check "show_names_$dev" grep -Eq \
			"^  $bus +$dev +$node +${drv:-unbound}\$" "$out"
	done
done
ktap_eq show_device_count 4 "$ndev"
ktap_check show_count_line grep -qx "devices: 4 ($nbound bound, 0 deferred, $((4 - nbound)) unbound)" "$out"

run list
eq_rc list_exit_0 0
ktap_check list_header grep -Eq '^ITEM +STATUS +DEVICES +BOUND +DEFERRED +UNBOUND$' "$out"
ktap_check list_addon grep -Eq "^addon-board +applied +4 +$nbound +0 +$((4 - nbound))\$" "$out"

run apply addon-board
eq_rc apply_existing_exit_3 3
ktap_check apply_existing_says grep -q 'exists already' "$err"
ktap_eq apply_existing_kept applied "$(ov_status addon-board)"

run remove addon-board
eq_rc remove_by_name 0
check_gone addon_gone /addon-bus@9030000/gpio@0
check_snapshot remove_leaves_nothing "$snap"

# --- apply a file "as" another item (through dtbo) -----------------------------------
run apply "$OVPOP_DIR/overlays/rtc.dtbo" as myrtc
eq_rc apply_file_as 0
ktap_eq apply_as_status applied "$(ov_status myrtc)"
ktap_eq apply_file_not_path "" "$(cat "$OV_CFS/myrtc/path" 2>&1)"
check_bound apply_as_bound amba /rtc@9010000 rtc-pl031
run apply rtc as ../x
eq_rc apply_bad_item_exit_3 3
# names ovl would split or glob
n=0
for bad in 'a b' 'a*' 'x[1]' 'a?' "$(printf 'a\tb')"; do
	n=$((n + 1))
	run apply rtc as "$bad"
	eq_rc "apply_bad_item_${n}_exit_3" 3
	ktap_check "apply_bad_item_${n}_says" grep -q 'bad item name.*whitespace' "$err"
done
# remove checks every name first: nothing is removed
n=0
for bad in ../x ovpop-no-such-item 'a b'; do
	n=$((n + 1))
	run remove myrtc "$bad"
	eq_rc "remove_some_bad_${n}_exit_3" 3
	ktap_eq "remove_some_bad_${n}_keeps_the_good" applied "$(ov_status myrtc)"
done
run remove myrtc
eq_rc remove_as 0
check_gone rtc_gone /rtc@9010000

# --- parameters -------------------------------------------------------------------
run params param-regulator
eq_rc params_exit_0 0
ktap_check params_lists grep -Eq "^regname +/fragment@0/__overlay__$reg regulator-name\$" "$out"

run apply param-regulator regname=ovl-test microvolt=3300000 second=0x10 \
	byte1=255 half=0xabcd wide=0x0102030405060708 always_on=yes no_boot=on \
	mac=b8:27:eb:01:23:45
eq_rc apply_params 0
ktap_eq params_status applied "$(ov_status param-regulator)"
ktap_eq param_string ovl-test "$(tr -d '\0' <"$rdt/regulator-name")"
ktap_eq param_cells_two_targets 00325aa000325aa0 \
	"$(hexof "$rdt/regulator-min-microvolt")$(hexof "$rdt/regulator-max-microvolt")"
ktap_eq param_cell_offset 0000000100000010 "$(hexof "$rdt/ovpop,cells")"
ktap_eq param_8_16_bit 00ffabcd "$(hexof "$rdt/ovpop,bytes")"
ktap_eq param_64_bit 0102030405060708 "$(hexof "$rdt/ovpop,wide")"
ktap_check param_bool_true [ -e "$rdt/regulator-always-on" ]
ktap_check param_inverted_bool_deletes [ ! -e "$rdt/regulator-boot-on" ]
ktap_eq param_bytes b827eb012345 "$(hexof "$rdt/ovpop,mac")"
if wait_until 3 regulator_named ovl-test >/dev/null; then
	r=$(regulator_named ovl-test)
	ktap_eq param_regulator_voltage 3300000 "$(cat "$r/microvolts" 2>&1)"
else
	ktap_fail param_regulator_voltage "no regulator named ovl-test"
fi
ktap_eq params_through_dtbo "" "$(cat "$OV_CFS/param-regulator/path" 2>&1)"
ktap_check params_remove ovl remove param-regulator >/dev/null

run apply param-regulator enable=off preset=1
eq_rc apply_status_param 0
ktap_eq param_status_off disabled "$(tr -d '\0' <"$rdt/status" 2>&1)"
ktap_eq param_literal_string fixed "$(tr -d '\0' <"$rdt/ovpop,preset" 2>&1)"
ktap_eq param_literal_cell 0000000700000002 "$(hexof "$rdt/ovpop,cells")"
check_gone param_disabled_no_device "$reg"
ktap_check params_remove_2 ovl remove param-regulator >/dev/null

# beyond 64 bits: shell arithmetic would wrap or saturate silently
n=0
for bad in nope=1 byte1=256 half=-32769 microvolt=3.3 always_on=maybe \
	mac=b8:27:e wide=0x10000000000000000 lookup=z wide=18446744073709551616 \
	wide=-9223372036854775809 wide=99999999999999999999; do
	n=$((n + 1))
	run apply param-regulator "$bad"
	eq_rc "param_refused_${n}_${bad%%=*}" 3
done
# a parameter without a value is "true"; a lookup table selects
run apply param-regulator regname lookup=b
eq_rc param_without_value_and_lookup 0
ktap_eq param_without_value_is_true true "$(tr -d '\0' <"$rdt/regulator-name" 2>&1)"
ktap_eq param_lookup bravo "$(tr -d '\0' <"$rdt/ovpop,letter" 2>&1)"
ktap_check params_remove_3 ovl remove param-regulator >/dev/null
run apply param-regulator nope=1
ktap_check unknown_param_named grep -q "unknown parameter 'nope'" "$err"
check_snapshot bad_params_change_nothing "$snap"

# --- a failing apply leaves no item -------------------------------------------------
run apply "$OVPOP_DIR/overlays/broken/bad-path.dtbo"
eq_rc kernel_refusal_exit_1 1
ktap_check kernel_refusal_reason grep -q 'failed: -\{0,1\}E[A-Z]*\|failed: -[0-9]' "$err"
ktap_check kernel_refusal_no_item [ ! -e "$OV_CFS/bad-path" ]
check_snapshot kernel_refusal_changes_nothing "$snap"

# --- remove: covered overlays, --all ------------------------------------------------
ktap_check stack_apply_1 ovl apply existing-bus >/dev/null
ktap_check stack_apply_2 ovl apply existing-bus-children >/dev/null
ktap_check stack_apply_3 ovl apply rtc >/dev/null
run remove existing-bus
eq_rc remove_covered_exit_1 1
ktap_check remove_covered_names grep -q 'covered by a later overlay.*existing-bus-children' "$err"
ktap_eq remove_covered_kept applied "$(ov_status existing-bus)"
# the covered overlay looks newest now: --all must retry it after the other
ktap_check stack_touch touch "$OV_CFS/existing-bus"
run list
ktap_eq stack_touch_newest existing-bus "$(tail -n 1 "$out" | cut -d ' ' -f 1)"
run remove --all
eq_rc remove_all 0
ktap_eq remove_all_order "removed rtc removed existing-bus-children removed existing-bus " \
	"$(tr '\n' ' ' <"$out")"
ktap_eq remove_all_empty "" "$(ls "$OV_CFS")"
check_snapshot remove_all_leaves_nothing "$snap"
run remove --all
eq_rc remove_all_none 0

# --- check (offline) ----------------------------------------------------------------
run check addon-board
eq_rc check_good 0
ktap_check check_lists_node grep -qx '  add node /addon-bus@9030000' "$out"
ktap_check check_lists_property grep -q 'add property /addon-bus@9030000/leds/led-status/label = "addon:green:status"' "$out"
run check param-regulator /sys/firmware/fdt regname=checked
eq_rc check_params 0
ktap_check check_params_applied grep -q "add property $reg/regulator-name = \"checked\"" "$out"
# the 64-bit limits, and a value fdtput must not take for an option
for c in 18446744073709551615:'ovpop,wide = <0xffffffff 0xffffffff>' \
	0xffffffffffffffff:'ovpop,wide = <0xffffffff 0xffffffff>' \
	-9223372036854775808:'ovpop,wide = <0x80000000 0x00>' \
	-1:'ovpop,wide = <0xffffffff 0xffffffff>' \
	4294967296:'ovpop,wide = <0x01 0x00>'; do
	run check param-regulator /sys/firmware/fdt "wide=${c%%:*}"
	ktap_check "check_param_wide_${c%%:*}" grep -qF "add property $reg/${c#*:}" "$out"
done
run check param-regulator /sys/firmware/fdt regname=-x
ktap_check check_param_dash_value grep -qF "add property $reg/regulator-name = \"-x\"" "$out"
run check "$OVPOP_DIR/overlays/broken/bad-path.dtbo"
eq_rc check_bad_path_exit_1 1
ktap_check check_bad_path_why grep -q 'target-path /ovpop-no-such-node is not in the base tree' "$err"
run check "$OVPOP_DIR/overlays/broken/bad-label.dtbo"
eq_rc check_bad_label_exit_1 1
ktap_check check_bad_label_why grep -q 'label &ovpop_no_such_label is not in the base tree' "$err"
# only that label: not the __fixups__ node's own line ("label & is not ...")
ktap_eq check_bad_label_only_it 1 "$(grep -c 'label &' "$err")"
run check addon-board /ovpop-no-such-base.dtb
eq_rc check_no_base_exit_3 3
check_snapshot check_changes_nothing "$snap"

# --- a loader without devices and error attributes (Raspberry Pi's) ----------------
mkdir -p "$fake/rpi"
echo applied >"$fake/rpi/status"
: >"$fake/rpi/path"
: >"$fake/rpi/dtbo"
rc=0
OVL_CONFIGFS=$fake ovl list >"$out" 2>"$err" || rc=$?
eq_rc rpi_list 0
ktap_check rpi_list_unknown grep -Eq '^rpi +applied +- +- +- +-$' "$out"
ktap_check rpi_list_says grep -q "no 'devices' attribute" "$err"
rc=0
OVL_CONFIGFS=$fake ovl show rpi >"$out" 2>"$err" || rc=$?
eq_rc rpi_show 0
ktap_check rpi_show_error_unknown grep -q '^error: *unknown' "$out"
ktap_check rpi_show_devices_unknown grep -q '^devices: *unknown' "$out"

ktap_end
