# Mean error per cell by age group and county size class (census.csv from
# census.sql): project_nn_integer and integer_gaussian on the 580-county
# slice, integer_gaussian on all 3,000 counties. gnuplot -e "out='census.png'" census.gp
set terminal pngcairo size 1300,480 font ",10"
set output out
set datafile separator ","
set multiplot layout 1,3 title "3,000 counties x 20 age groups, both margins exact, epsilon = 1: mean error per cell over 20 releases"
set xlabel "age group (1 = 0-4, 20 = 95+)"
set ylabel "mean error per cell (released - true)"
set xrange [0.5:20.5]
set yrange [-1:1]
set grid
set xzeroaxis lt -1
set key top left font ",9"
colors = "#d62728 #ff7f0e #2ca02c #1f77b4"
set title "project\\_nn\\_integer (TopDown-style), 580-county slice"
plot for [k=1:4] "census.csv" using 1:(column(k + 1)) with linespoints pt 7 ps 0.6 lc rgb word(colors, k) \
     title "counties ".word("<2,500 2,500-19,999 20,000-99,999 >=100,000", k)
set title "integer\\_gaussian (exact), 580-county slice"
plot for [k=1:4] "census.csv" using 1:(column(k + 5)) with linespoints pt 7 ps 0.6 lc rgb word(colors, k) \
     title "counties ".word("<2,500 2,500-19,999 20,000-99,999 >=100,000", k)
set title "integer\\_gaussian (exact), all 3,000 counties"
plot for [k=1:4] "census.csv" using 1:(column(k + 9)) with linespoints pt 7 ps 0.6 lc rgb word(colors, k) \
     title "counties ".word("<2,500 2,500-19,999 20,000-99,999 >=100,000", k)
unset multiplot
