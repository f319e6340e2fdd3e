#include <asm-generic/vmlinux.lds.h>
.section .rodata,"a"
.balign STRUCT_ALIGNMENT
.global __dtbo_kunit_disable_begin
__dtbo_kunit_disable_begin:
.incbin "/work/main/tests/kunit/kunit-disable.dtbo" 
.global __dtbo_kunit_disable_end
__dtbo_kunit_disable_end:
.balign STRUCT_ALIGNMENT
