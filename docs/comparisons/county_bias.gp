# Mean error of each county over 1000 releases against its population
# (county_bias.csv from county_bias.sql). gnuplot -e "out='county_bias.png'" county_bias.gp
set terminal pngcairo size 1000,560 font ",11"
set output out
set datafile separator ","
set logscale x
set xlabel "county population (log scale)"
set ylabel "mean error over 1000 releases (released - true)"
set title "One state of 100 counties, state total exact, epsilon = 0.192: mean error by county size"
set key top right
set grid
set xzeroaxis lt -1
plot "county_bias.csv" using ($1 + 1):4 with points pt 7 ps 0.8 lc rgb "#d62728" title "project\\_nn\\_integer (NNLS + controlled rounding)", \
     "" using ($1 + 1):3 with points pt 5 ps 0.7 lc rgb "#1f77b4" title "congenial (conditioned on totals and y >= 0)", \
     "" using ($1 + 1):2 with points pt 9 ps 0.8 lc rgb "#2ca02c" title "integer\\_laplace (conditioned on totals)"
