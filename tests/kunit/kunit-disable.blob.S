.section .rodata,"a"
.balign 8
.global ovpop_blob_kunit_disable_begin
ovpop_blob_kunit_disable_begin:
.incbin "/work/main/tests/kunit/kunit-disable.dtbo"
.global ovpop_blob_kunit_disable_end
ovpop_blob_kunit_disable_end:
