#!/bin/bash
# Old (before issue 62) and new bench, interleaved per subject, on the report's moving rows.
OLD=${OLD:?the before build's collidoscope-bench}
NEW=${NEW:-build/release/bench/collidoscope-bench}
OUT=${OUT:-moving-rows.csv}
N=${N:-100000}
SPEEDS=${SPEEDS:-"0.05 0.5"}
ALGOS=${ALGOS:-"dynamic-aabb-tree sorted-grid radix-chunks zorder-sweep auto"}
: > $OUT
for dim in 2 3; do for scene in uniform powerlaw centerline clusters; do for speed in $SPEEDS; do
  for a in $ALGOS; do
    for build in old new; do
      B=$OLD; [ $build = new ] && B=$NEW
      line=$($B --dim $dim --scene $scene --n $N --speed $speed --broadphase $a --frames 100 --warmup 20 --order morton --threads 1 --budget 60 --format csv 2>/dev/null | tail -1)
      echo "$build,$line" >> $OUT
    done
  done
done; done; done

