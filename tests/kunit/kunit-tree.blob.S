.section .rodata,"a"
.balign 8
.global ovpop_blob_kunit_tree_begin
ovpop_blob_kunit_tree_begin:
.incbin "/work/main/tests/kunit/kunit-tree.dtbo"
.global ovpop_blob_kunit_tree_end
ovpop_blob_kunit_tree_end:
