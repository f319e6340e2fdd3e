#!/bin/sh
# Security of the loader: no configfs attribute is world-writable; writes
# need CAP_SYS_ADMIN (root without it is refused: ovpop-tool nocap), also
# when a kernel thread, whose credentials are the kernel's, closes the dtbo
# last (ovpop-tool kclose); blobs larger than the max_size parameter are
# refused (dtbo and path); path takes only names under the firmware search
# path; and, last, once the kernel is locked down (lockdown LSM, integrity)
# no overlay is loaded. The lockdown cannot be undone, so run.sh runs this
# script last; on a kernel without the lockdown LSM that case is skipped.
here=$(dirname "$0")
# shellcheck source=ktap.sh
. "$here/ktap.sh"
# shellcheck source=ov.sh
. "$here/ov.sh"

rtc=$OVPOP_DIR/overlays/rtc.dtbo
param=/sys/module/ovpop/parameters/max_size
max0=$(cat "$param")

# shellcheck disable=SC2317 # run by ktap_end
cleanup() {
	echo "$max0" >"$param"
	ov_remove sec-modes sec-nocap sec-nocap-path sec-kclose sec-big \
		sec-big-path sec-dotdot sec-before sec-locked
}

ktap_begin security
ktap_at_exit cleanup

# refused ITEM CASE ERE: the item is unapplied and its error matches ERE
refused() {
	ktap_eq "${2}_unapplied" unapplied "$(ov_status "$1")"
	ktap_match "${2}_error" "$3" "$(cat "$OV_CFS/$1/error")"
}

# --- modes --------------------------------------------------------------------
mkdir "$OV_CFS/sec-modes"
for a in path dtbo status target error; do
	m=$(stat -c %a "$OV_CFS/sec-modes/$a")
	if [ $((0$m & 2)) -eq 0 ]; then
		ktap_ok "${a}_not_world_writable"
	else
		ktap_fail "${a}_not_world_writable" "mode $m"
	fi
done
ktap_diag "modes: $(stat -c '%n %a' "$OV_CFS"/sec-modes/* | sed 's|.*/||' | tr '\n' ' ')"

# --- CAP_SYS_ADMIN ----------------------------------------------------------------
mkdir "$OV_CFS/sec-nocap" "$OV_CFS/sec-nocap-path"
"$OVPOP_DIR/bin/ovpop-tool" nocap sh -c "cat '$rtc' >'$OV_CFS/sec-nocap/dtbo'"
refused sec-nocap nocap_dtbo 'CAP_SYS_ADMIN'
if "$OVPOP_DIR/bin/ovpop-tool" nocap sh -c \
	"echo ovpop/rtc.dtbo >'$OV_CFS/sec-nocap-path/path'" 2>/dev/null; then
	ktap_fail nocap_path_write_fails "the write succeeded"
else
	ktap_ok nocap_path_write_fails
fi
refused sec-nocap-path nocap_path 'CAP_SYS_ADMIN'
check_gone nocap_no_device /rtc@9010000

# --- the closer's credentials ---------------------------------------------------
# configfs applies a dtbo when the file's last reference goes, with the
# credentials of whoever drops it: here a workqueue's, tearing down the
# io_uring the writer registered the file in
# shellcheck disable=SC2317 # run by wait_until
kclose_done() {
	[ "$(ov_status sec-kclose)" = applied ] || [ -n "$(cat "$OV_CFS/sec-kclose/error")" ]
}
mkdir "$OV_CFS/sec-kclose"
"$OVPOP_DIR/bin/ovpop-tool" nocap "$OVPOP_DIR/bin/ovpop-tool" kclose \
	"$OV_CFS/sec-kclose/dtbo" "$rtc"
wait_until 10 kclose_done
refused sec-kclose kclose_dtbo 'closed by a kernel thread'
check_gone kclose_no_device /rtc@9010000

# --- max_size -----------------------------------------------------------------------
size=$(wc -c <"$rtc")
echo $((size - 1)) >"$param"
mkdir "$OV_CFS/sec-big" "$OV_CFS/sec-big-path"
cat "$rtc" >"$OV_CFS/sec-big/dtbo"
refused sec-big max_size_dtbo "^-(EFBIG|27): $size bytes, more than max_size $((size - 1))"
if echo ovpop/rtc.dtbo >"$OV_CFS/sec-big-path/path" 2>/dev/null; then
	ktap_fail max_size_path_write_fails "the write succeeded"
else
	ktap_ok max_size_path_write_fails
fi
refused sec-big-path max_size_path 'EFBIG|27'
echo "$max0" >"$param"
ktap_eq max_size_default_1MiB 1048576 "$max0"

# --- path ---------------------------------------------------------------------------
mkdir "$OV_CFS/sec-dotdot"
if echo ovpop/../../../etc/passwd >"$OV_CFS/sec-dotdot/path" 2>/dev/null; then
	ktap_fail dotdot_write_fails "the write succeeded"
else
	ktap_ok dotdot_write_fails
fi
refused sec-dotdot dotdot 'not a name under the firmware search path'

# --- lockdown (last) -------------------------------------------------------------------
lockdown=/sys/kernel/security/lockdown
[ -e "$lockdown" ] || mount -t securityfs securityfs /sys/kernel/security 2>/dev/null
if [ -w "$lockdown" ] && grep -q integrity "$lockdown"; then
	ktap_check apply_before_lockdown ov_apply_dtbo sec-before "$rtc"
	expect_kmsg 'Lockdown: .*modifying device tree contents is restricted'
	echo integrity >"$lockdown"
	ktap_match locked_down '\[integrity\]' "$(cat "$lockdown")"
	mkdir "$OV_CFS/sec-locked"
	cat "$OVPOP_DIR/overlays/periphid.dtbo" >"$OV_CFS/sec-locked/dtbo"
	refused sec-locked locked_down_dtbo 'locked down'
	check_gone locked_down_no_device /ovpop-periphid@c000000
	ktap_check remove_after_lockdown ov_remove sec-before
	check_gone remove_after_lockdown_no_device /rtc@9010000
else
	ktap_skip lockdown "kernel without the lockdown LSM (only the debug lane has it)"
fi
ktap_end
