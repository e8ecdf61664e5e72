/*
 * dp.privatize's release as rows, for a caller that returns them itself
 * (privatize_scan.c) instead of through a function's tuplestore.
 */
#ifndef INVARIANT_DP_PRIVATIZE_H
#define INVARIANT_DP_PRIVATIZE_H

#include "postgres.h"

#include "fmgr.h"

typedef struct PrivatizedRows PrivatizedRows;

/*
 * The release of dp.privatize's arguments in fcinfo (its resultinfo a
 * ReturnSetInfo whose expectedDesc is the column definition list): the
 * source read with the caller's privileges, noised by the core, recorded
 * for dp.last_release(). Everything lives in cxt until it is reset.
 */
extern PrivatizedRows *privatize_rows(FunctionCallInfo fcinfo, MemoryContext cxt);

extern size_t privatized_count(const PrivatizedRows *rows);

/*
 * Row r as the column definition list declares it (values and nulls).
 * needed: NULL, or per column whether the caller reads it (the others are
 * left NULL, not converted).
 */
extern void privatized_row(const PrivatizedRows *rows, size_t r, const bool *needed, Datum *values, bool *nulls);

#endif
