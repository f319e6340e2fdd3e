.section .rodata,"a"
.balign 8
.global ovpop_blob_kunit_clash_begin
ovpop_blob_kunit_clash_begin:
.incbin "/work/main/tests/kunit/kunit-clash.dtbo"
.global ovpop_blob_kunit_clash_end
ovpop_blob_kunit_clash_end:
