/*
 * A sort that a cancel stops. PostgreSQL's qsort holds no
 * CHECK_FOR_INTERRUPTS, and the extension sorts arrays as long as a table:
 * an error bar's rows (4M of them took qsort 0.6 s) and a stream's rows by
 * period, where each comparison calls the period type's ordering function.
 * Runs of 32768 elements are sorted by qsort_arg, then merged pairwise
 * through a buffer as large as the array, with a check before each run and
 * each merge. Not stable. The core's polled_sort.hpp is the same design;
 * this one stays in C because its comparisons may raise a PostgreSQL error,
 * which must never cross the core's C++ frames.
 */
#ifndef INVARIANT_DP_CANCELLABLE_SORT_H
#define INVARIANT_DP_CANCELLABLE_SORT_H

#include "postgres.h"

void		cancellable_sort(void *base, size_t n, size_t size, qsort_arg_comparator compare, void *arg);

#endif
