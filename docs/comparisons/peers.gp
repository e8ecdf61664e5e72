# Release time and accuracy per workload and system (peers.md), from
# peers_time.dat and peers_accuracy.dat (test/bench/peers/report.py writes
# them; one block per workload). gnuplot peers.gp
set terminal pngcairo size 2400,900 font ",10"
set output "peers.png"
set termoption noenhanced
set multiplot layout 2,5 title "invariant_dp (ours) beside OpenDP, Tumult Analytics and PipelineDP: medians over the runs"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set grid ytics
set xtics rotate by -35 font ",9"
set key below font ",9"
set logscale y
set ylabel "seconds (log scale)"
titles = "'1. privacy unit, 10M rows' '2. 1000 x 1000 table' '3. states, counties, tracts' '4. one group per person' '5. one margin exact'"
do for [w=0:4] {
  set title word(titles, w + 1) . ": release time"
  plot "peers_time.dat" index w using 2:xtic(1) title "release" lc rgb "#1f77b4", \
       "" index w using 3 title "start-up (Spark, imports)" lc rgb "#bbbbbb"
}
unset logscale y
set ylabel "root mean square error"
set yrange [0:*]
set title "1. privacy unit: noise RMSE and cells shown"
plot "peers_accuracy.dat" index 0 using 2:xtic(1) title "noise RMSE of the shown cells" lc rgb "#2ca02c", \
     "" index 0 using 3 title "cells shown / 1000" lc rgb "#ff7f0e"
set title "2. 1000 x 1000: cells, and row/column totals (/10)"
plot "peers_accuracy.dat" index 1 using 2:xtic(1) title "cell RMSE" lc rgb "#2ca02c", \
     "" index 1 using 3 title "total RMSE / 10 (0: margins exact)" lc rgb "#d62728"
set title "3. hierarchy: RMSE per level (states exact for ours)"
plot "peers_accuracy.dat" index 2 using 2:xtic(1) title "states" lc rgb "#9467bd", \
     "" index 2 using 3 title "counties" lc rgb "#8c564b", "" index 2 using 4 title "tracts" lc rgb "#e377c2"
set title "4. one group per person: count RMSE and groups shown"
plot "peers_accuracy.dat" index 3 using 2:xtic(1) title "RMSE of the shown counts" lc rgb "#2ca02c", \
     "" index 3 using 3 title "groups shown / 1000" lc rgb "#ff7f0e"
set title "5. 1000 x 100, row totals exact: cells, and row totals (/10)"
plot "peers_accuracy.dat" index 4 using 2:xtic(1) title "cell RMSE" lc rgb "#2ca02c", \
     "" index 4 using 3 title "row total RMSE / 10 (0: margin exact)" lc rgb "#d62728"
unset multiplot
