.section .rodata,"a"
.balign 8
.global ovpop_blob_kunit_add_begin
ovpop_blob_kunit_add_begin:
.incbin "/work/main/tests/kunit/kunit-add.dtbo"
.global ovpop_blob_kunit_add_end
ovpop_blob_kunit_add_end:
