#include <asm-generic/vmlinux.lds.h>
.section .rodata,"a"
.balign STRUCT_ALIGNMENT
.global __dtbo_kunit_tree_begin
__dtbo_kunit_tree_begin:
.incbin "/work/main/tests/kunit/kunit-tree.dtbo" 
.global __dtbo_kunit_tree_end
__dtbo_kunit_tree_end:
.balign STRUCT_ALIGNMENT
