#include <asm-generic/vmlinux.lds.h>
.section .rodata,"a"
.balign STRUCT_ALIGNMENT
.global __dtbo_kunit_clash_begin
__dtbo_kunit_clash_begin:
.incbin "/work/main/tests/kunit/kunit-clash.dtbo" 
.global __dtbo_kunit_clash_end
__dtbo_kunit_clash_end:
.balign STRUCT_ALIGNMENT
