#!/bin/sh
# Overlays whose changeset the kernel would fail to build after it made
# entries (module/precheck.c, overlays/broken/): the write is refused with
# the conflict in "error", and nothing stays in the kernel's list of
# overlays. A half-built changeset left there has an entry on / and makes
# the removal of every overlay applied before it "not topmost": so the
# overlay applied first (rtc) must go, device and all, with nothing logged
# about a removal or a revert that failed.
# Then overlays the kernel applies and the checks must let through: new
# sibling nodes whose names differ only in case (overlays/case-siblings),
# a local phandle reference at an offset that is not a multiple of 4
# (overlays/local-fixups-unaligned).
here=$(dirname "$0")
# shellcheck source=ktap.sh
. "$here/ktap.sh"
# shellcheck source=ov.sh
. "$here/ov.sh"

snap="$OV_TMP/iface-precheck.snap"
stuck='is not topmost|cannot remove|Error reverting changeset|Could not find overlay'

# shellcheck disable=SC2317 # run by ktap_end
cleanup() {
	ov_remove refused rtc case-siblings local-fixups-unaligned
	rm -f "$snap"
}

# kmsg_count ERE: how many lines of the kernel log match
kmsg_count() {
	dmesg | grep -cE "$1"
}

# refused CASE BROKEN ERE: overlays/broken/BROKEN is refused after rtc was
# applied, with an error matching ERE, and rtc can be removed afterwards
refused() {
	ktap_check "$1_rtc_before" ov_apply_dtbo rtc
	ov__before=$(kmsg_count "$stuck")
	mkdir "$OV_CFS/refused"
	cat "$OVPOP_DIR/overlays/broken/$2.dtbo" >"$OV_CFS/refused/dtbo"
	ktap_eq "$1_unapplied" unapplied "$(ov_status refused)"
	ktap_match "$1_error_says_why" "$3" "$(cat "$OV_CFS/refused/error")"
	ktap_check "$1_rmdir" rmdir "$OV_CFS/refused"
	ktap_check "$1_rmdir_rtc" ov_remove rtc
	check_gone "$1_rtc_gone" /rtc@9010000
	ktap_eq "$1_rtc_node_gone" no "$(dt_has /rtc@9010000 && echo yes || echo no)"
	ktap_eq "$1_nothing_stuck" "$ov__before" "$(kmsg_count "$stuck")"
}

# od_hex FILE SKIP COUNT: COUNT bytes of FILE from SKIP, in hex, no blanks
od_hex() {
	dd if="$1" bs=1 skip="$2" count="$3" 2>/dev/null | od -An -tx1 | tr -d ' \n'
}

ktap_begin iface-precheck
ktap_at_exit cleanup
ov_snapshot >"$snap"

refused phandle_clash phandle-clash \
	'^-(EINVAL|22): .*/intc@8000000 .*phandle'
refused phandle_clash_nolabel phandle-clash-nolabel \
	'^-(EINVAL|22): .*/intc@8000000 .*phandle'
refused symbol_outside symbol-outside \
	'^-(EINVAL|22): .*ovpop_sym_b'
refused case_dup_prop case-dup-prop \
	'^-(EINVAL|22): .*two fragments set ovpop,case of /psci$'
refused case_dup_single case-dup-single \
	'^-(EINVAL|22): .*two fragments set ovpop,case of /psci$'

ktap_check case_siblings_apply ov_apply_dtbo case-siblings
ktap_eq case_siblings_upper upper "$(tr -d '\0' <"$OV_DT/ovpop-Case/ovpop,which")"
ktap_eq case_siblings_lower lower "$(tr -d '\0' <"$OV_DT/ovpop-case/ovpop,which")"
ktap_check case_siblings_remove ov_remove case-siblings

ktap_check unaligned_apply ov_apply_dtbo local-fixups-unaligned
ktap_eq unaligned_phandle_at_3 "$(od_hex "$OV_DT/ovpop-lfx-target/phandle" 0 4)" \
	"$(od_hex "$OV_DT/ovpop-lfx/ovpop,ref" 3 4)"
ktap_check unaligned_remove ov_remove local-fixups-unaligned

check_snapshot nothing_left "$snap"
ktap_end
