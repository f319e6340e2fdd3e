# shellcheck shell=sh
# ovl-params.sh: the parameter engine of ovl (scripts/ovl), which sources it
# from its own directory (make install puts both in $(PREFIX)/sbin): Raspberry
# Pi style __overrides__ declarations read from an overlay and set in a copy
# of it with fdtget/fdtput. Not a command; the syntax is in ovl's header.
# Uses ovl's fail, need, mktmp, flat and $tmp.
# shellcheck disable=SC2154 # tmp is ovl's

# decls FILE PARAM: the declarations of PARAM, "PHANDLE<TAB>DECL<TAB>CELL" a
# line (CELL: the cell after a "prop:N=" literal, else empty)
decls() {
	fdtget -t bx -- "$1" /__overrides__ "$2" 2>/dev/null | awk '
	function hex(s,  i, v) {
		v = 0
		for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v
	}
	function cell(i) {
		return hex(b[i]) * 16777216 + hex(b[i + 1]) * 65536 + hex(b[i + 2]) * 256 + hex(b[i + 3])
	}
	{ for (j = 1; j <= NF; j++) b[++n] = $j }
	END {
		i = 1
		while (i <= n) {
			if (n - i < 3) { print "bad"; exit 1 }
			ph = cell(i); i += 4; s = ""
			while (i <= n && b[i] != "0") { s = s sprintf("%c", hex(b[i])); i++ }
			if (i > n) { print "bad"; exit 1 }
			i++; c = ""
			if (s ~ /[.;:#][0-9]+=$/ && n - i >= 3) { c = cell(i); i += 4 }
			printf "%d\t%s\t%s\n", ph, s, c
		}
	}'
}

# node_of PHANDLE FLAT: the path of the node with that phandle
node_of() {
	awk -F '\t' -v ph="$1" '
	function num(s,  i, v) {
		s = tolower(s); gsub(/[<> ]/, "", s); sub(/^0x/, "", s); v = 0
		for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v
	}
	($2 == "phandle" || $2 == "linux,phandle") && num($3) == ph { print $1; exit }' "$2"
}

truth() { # VALUE: prints 1 or 0, fails for anything else
	case $1 in
	y | Y | yes | YES | on | ON | true | TRUE | 1) echo 1 ;;
	n | N | no | NO | off | OFF | false | FALSE | 0) echo 0 ;;
	*) return 1 ;;
	esac
}

# dec_hex NUMBER WIDTH: the hex digits of decimal NUMBER if it fits WIDTH
# bytes (two's complement), or fails. Shell arithmetic has 64 signed bits
# and overflows silently: 8-byte values are range-checked as digit strings
# (-2^63..2^64-1) and computed as two 32-bit halves.
dec_hex() {
	_d=${1#-}
	case $_d in '' | *[!0-9]*) return 1 ;; esac
	_d=${_d#"${_d%%[!0]*}"} # no octal
	_d=${_d:-0}
	if [ "$2" -lt 8 ]; then
		[ ${#_d} -le 10 ] || return 1
		case $1 in -*) _d=-$_d ;; esac
		[ "$_d" -lt $((1 << ($2 * 8))) ] && [ "$_d" -ge $((-(1 << ($2 * 8 - 1)))) ] || return 1
		printf '%x\n' $((_d & ((1 << ($2 * 8)) - 1)))
		return 0
	fi
	case $1 in -*) _max=9223372036854775808 ;; *) _max=18446744073709551615 ;; esac
	[ ${#_d} -lt ${#_max} ] || { [ ${#_d} -eq ${#_max} ] &&
		[ "$(printf '%s\n' "$_d" "$_max" | LC_ALL=C sort | tail -n 1)" = "$_max" ]; } || return 1
	# _d = hi * 10^9 + lo; hi = hq * 2^32 + hr
	_hi=${_d%?????????}
	[ ${#_d} -gt 9 ] || _hi=0
	_lo=${_d#"${_hi#0}"}
	_lo=${_lo#"${_lo%%[!0]*}"}
	_t=$(((_hi & 4294967295) * 1000000000 + ${_lo:-0}))
	_u=$(((_hi >> 32) * 1000000000 + (_t >> 32)))
	_l=$((_t & 4294967295))
	case $1 in -*) # two's complement of the halves
		if [ "$_l" -eq 0 ]; then
			_u=$(((4294967296 - _u) & 4294967295))
		else
			_u=$((4294967295 - _u)) _l=$((4294967296 - _l))
		fi ;;
	esac
	printf '%08x%08x\n' "$_u" "$_l"
}

# bytes_of NUMBER WIDTH: the big-endian bytes (hex) of NUMBER, or fails
bytes_of() {
	case $1 in
	0[xX]*) _x=${1#??}
		case $_x in '' | *[!0-9a-fA-F]*) return 1 ;; esac
		_x=${_x#"${_x%%[!0]*}"} ;;
	-[0-9]* | [0-9]*) _x=$(dec_hex "$1" "$2") || return 1 ;;
	*) _x=$(truth "$1") || return 1 ;;
	esac
	[ ${#_x} -le $(($2 * 2)) ] || return 1
	while [ ${#_x} -lt $(($2 * 2)) ]; do _x=0$_x; done
	printf '%s\n' "$_x" | sed 's/../& /g; s/ $//'
}

# put_bytes COPY NODE PROP OFFSET BYTES: BYTES at OFFSET of PROP, which grows
# (zero-filled) as needed
put_bytes() {
	_old=$(fdtget -t bx -- "$1" "$2" "$3" 2>/dev/null) || _old=
	# shellcheck disable=SC2046 # a list of hex bytes
	fdtput -t bx -- "$1" "$2" "$3" $(printf '%s\n' "$_old" | awk -v off="$4" -v new="$5" '
		{ n = split($0, b, " ") }
		END {
			m = split(new, w, " ")
			for (i = 1; i <= m; i++) b[off + i] = w[i]
			if (off + m > n) n = off + m
			for (i = 1; i <= n; i++) printf "%s ", (i in b && b[i] != "" ? b[i] : "0")
		}')
}

# set_decl COPY FLAT PARAM VALUE PHANDLE DECL CELL: one target of a parameter
set_decl() {
	_p=$3 _val=$4
	[ "$5" -ne 0 ] ||
		fail 3 "parameter $_p: fragment switches (<0>,\"$6\") are not supported"
	[ "$5" -ne 4294967295 ] ||
		fail 3 "parameter $_p: its target is outside the overlay (a label of the base tree); not supported"
	_node=$(node_of "$5" "$2")
	[ -n "$_node" ] || fail 3 "parameter $_p: no node of the overlay has phandle $5"
	_prop=$(printf '%s\n' "$6" | awk '{ i = match(substr($0, 2), /[?!.;:#{=[]/); print i ? substr($0, 1, i) : $0 }')
	_spec=${6#"$_prop"}
	[ -n "$_prop" ] || fail 3 "parameter $_p: malformed declaration \"$6\""
	[ "$_prop" != name ] ||
		fail 3 "parameter $_p: renaming nodes (\"name\") is not supported"
	case $_spec in
	*'{'*) fail 3 "parameter $_p: lookup tables (\"$6\") are not supported" ;;
	'' | '='*)
		case $_spec in '='*) _val=${_spec#=} ;; esac
		if [ "$_prop" = status ] && _b=$(truth "$_val"); then
			[ "$_b" = 1 ] && _val=okay || _val=disabled
		fi
		fdtput -t s -- "$1" "$_node" "$_prop" "$_val" ||
			fail 3 "parameter $_p: cannot set $_node/$_prop" ;;
	'?' | '!')
		_b=$(truth "$_val") || fail 3 "parameter $_p: '$_val' is not a boolean (on/off, yes/no, true/false, 1/0)"
		[ "$_spec" = '!' ] && _b=$((1 - _b))
		if [ "$_b" = 1 ]; then
			fdtput -- "$1" "$_node" "$_prop"
		elif fdtget -- "$1" "$_node" "$_prop" >/dev/null 2>&1; then
			fdtput -d -- "$1" "$_node" "$_prop"
		fi || fail 3 "parameter $_p: cannot set $_node/$_prop" ;;
	'['*)
		case $_spec in '[='*) _val=${_spec#??} ;; '[') ;; *) fail 3 "parameter $_p: malformed declaration \"$6\"" ;; esac
		_h=$(printf '%s' "$_val" | tr -d ':')
		case $_h in '' | *[!0-9a-fA-F]*) fail 3 "parameter $_p: '$_val' is not a byte string (hex bytes, colons allowed)" ;; esac
		[ $((${#_h} % 2)) -eq 0 ] || fail 3 "parameter $_p: '$_val' has an odd number of hex digits"
		# shellcheck disable=SC2046 # a list of hex bytes
		fdtput -t bx -- "$1" "$_node" "$_prop" $(printf '%s\n' "$_h" | sed 's/../& /g') ||
			fail 3 "parameter $_p: cannot set $_node/$_prop" ;;
	[.\;:#]*)
		case $_spec in
		.*) _w=1 ;; \;*) _w=2 ;; :*) _w=4 ;; *) _w=8 ;;
		esac
		_off=${_spec#?}
		case $_off in
		*=*) _val=${_off#*=}
			_off=${_off%%=*}
			[ -n "$_val" ] || _val=$7 ;;
		esac
		case $_off in '' | *[!0-9]*) fail 3 "parameter $_p: malformed declaration \"$6\"" ;; esac
		_bytes=$(bytes_of "$_val" "$_w") ||
			fail 3 "parameter $_p: '$_val' is not a $((_w * 8))-bit number"
		put_bytes "$1" "$_node" "$_prop" "$_off" "$_bytes" ||
			fail 3 "parameter $_p: cannot set $_node/$_prop" ;;
	*) fail 3 "parameter $_p: malformed declaration \"$6\"" ;;
	esac
}

# with_params FILE PARAM=VALUE...: prints the path of a copy of FILE with the
# parameters set, or exits; FILE itself without parameters
with_params() {
	_src=$1
	shift
	if [ $# -eq 0 ]; then
		printf '%s\n' "$_src"
		return 0
	fi
	need dtc fdtget fdtput
	mktmp
	cp "$_src" "$tmp/params.dtbo" || fail 4 "cannot copy $_src"
	flat "$_src" >"$tmp/flat"
	grep -qx '/__overrides__' "$tmp/flat" ||
		fail 3 "${_src##*/} has no parameters (no __overrides__ node)"
	for _a in "$@"; do
		_n=${_a%%=*}
		_v=${_a#*=}
		fdtget -- "$_src" /__overrides__ "$_n" >/dev/null 2>&1 ||
			fail 3 "unknown parameter '$_n' (${_src##*/} has: $(fdtget -p "$_src" /__overrides__ | tr '\n' ' ' | sed 's/ $//'))"
		decls "$_src" "$_n" >"$tmp/decls" ||
			fail 3 "parameter $_n: its __overrides__ entry is malformed"
		while IFS='	' read -r _ph _d _c; do
			set_decl "$tmp/params.dtbo" "$tmp/flat" "$_n" "$_v" "$_ph" "$_d" "$_c"
		done <"$tmp/decls"
	done
	printf '%s\n' "$tmp/params.dtbo"
}
