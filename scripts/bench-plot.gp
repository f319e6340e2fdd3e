# The benchmark's plot (scripts/bench.sh): gnuplot -e "dat='FILE';
# out='SVG'; title='...'" bench-plot.gp. Columns of FILE (bench-report.awk):
# N, then in ms: ovpop apply, kernel apply, floor register, ovpop populate
# phase (placement a, platform nodes); ovpop apply (b, mixed); ovpop
# removal, kernel removal, floor unregister (a, platform nodes); the
# kernel's of_overlay_fdt_apply() in b, platform nodes, where it creates one
# device: the OF core's own time.
set terminal svg size 1100,480 dynamic background rgb "white"
set output out
set multiplot layout 1,2 title title
set logscale xy
set grid
set key top left
set xlabel "N (device nodes in the overlay)"
set ylabel "ms"
set title "apply"
plot dat using 1:3 with linespoints title "kernel (a, plat)", \
     dat using 1:2 with linespoints title "ovpop (a, plat)", \
     dat using 1:6 with linespoints title "ovpop (b, mixed)", \
     dat using 1:5 with linespoints dashtype 2 title "ovpop populate phase (a, plat)", \
     dat using 1:4 with linespoints dashtype 3 title "floor (plat)", \
     dat using 1:10 with linespoints dashtype 4 title "OF core alone (kernel, b, 1 device)"
set title "removal"
plot dat using 1:8 with linespoints title "kernel (a, plat)", \
     dat using 1:7 with linespoints title "ovpop (a, plat)", \
     dat using 1:9 with linespoints dashtype 3 title "floor (plat)"
unset multiplot
