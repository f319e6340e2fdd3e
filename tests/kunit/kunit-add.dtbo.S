#include <asm-generic/vmlinux.lds.h>
.section .rodata,"a"
.balign STRUCT_ALIGNMENT
.global __dtbo_kunit_add_begin
__dtbo_kunit_add_begin:
.incbin "/work/main/tests/kunit/kunit-add.dtbo" 
.global __dtbo_kunit_add_end
__dtbo_kunit_add_end:
.balign STRUCT_ALIGNMENT
