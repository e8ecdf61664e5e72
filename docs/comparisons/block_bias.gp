# The block bias study (block_bias.sql): left, the mean error of the blocks
# by true size (block_bias.csv: mean size, then mean error and its standard
# error for integer_cascade and for project_nn_integer); right, the root mean
# square error of every level (block_levels.csv).
# gnuplot -e "out='block_bias.png'" block_bias.gp
set terminal pngcairo size 1200,520 font ",11"
set output out
set datafile separator ","
set multiplot layout 1,2 title "2 states, 10 counties, 23,415 blocks; state totals exact; epsilon = 1; 200 releases each"
set logscale x
set xlabel "true block population + 1 (log scale; size classes 0, 1-2, 3-5, ..., > 200)"
set ylabel "mean error of a block (released - true)"
set title "Bias by block size"
set key top right
set grid
set xzeroaxis lt -1
plot "block_bias.csv" using ($1 + 1):4:5 with yerrorlines pt 7 ps 0.8 lc rgb "#d62728" \
         title "project\\_nn\\_integer (NNLS + controlled rounding)", \
     "" using ($1 + 1):2:3 with yerrorlines pt 9 ps 0.8 lc rgb "#2ca02c" title "integer\\_cascade (exact lattice Gaussian)"
unset logscale x
set logscale y
set xlabel "level"
set ylabel "root mean square error of a node"
set title "Error by level (the total and the states are exact)"
set xtics ("total" 0, "state" 1, "county" 2, "tract" 3, "block group" 4, "block" 5)
set xrange [1.5:5.5]
set key top left
plot "block_levels.csv" using 1:3 with linespoints pt 7 ps 0.9 lc rgb "#d62728" title "project\\_nn\\_integer", \
     "" using 1:2 with linespoints pt 9 ps 0.9 lc rgb "#2ca02c" title "integer\\_cascade"
unset multiplot
