/*
 * What the files of the source reader share (source_reader.h is its
 * interface): how a key column is kept, the batch of rows waiting to be
 * coded, the memory the rows take, and the receiver's state.
 * source_checks.c checks the query, source_memory.c counts and maps memory,
 * source_keys.c sets up key columns and their values, source_receiver.c
 * codes rows as they arrive, source_reader.c runs the query into it, and
 * query_rows.c reads the coded rows back. Calls go one way: the reader
 * calls the receiver, the receiver calls query_rows.c (to name a row in
 * an error), never back.
 */
#ifndef INVARIANT_DP_SOURCE_READER_INTERNAL_H
#define INVARIANT_DP_SOURCE_READER_INTERNAL_H

#include "postgres.h"

#include "fmgr.h"
#include "lib/stringinfo.h"
#include "tcop/dest.h"

#include "key_equality.h"
#include "source_reader.h"

/*
 * One key column (or the unit's): its dictionary in the core, and how its
 * values are stored and printed. A by-value key's binary image is its
 * Datum, so the dictionary gives it back; a by-reference key is copied into
 * the arena once, when it first appears (level_values, by code). Where
 * equal values may differ in their bytes, each value is first replaced by
 * the first one of its class (key_equality.h), kept in the arena.
 */
typedef struct KeyColumn
{
	int16		typlen;
	bool		typbyval;
	char		typstorage;
	FmgrInfo	output_fn;
	KeyEquality *equality;		/* NULL: equal values have equal bytes */
	idp_key_encoder *encoder;
	idp_key_dictionary dictionary;	/* as of the last batch coded */
	Datum	   *level_values;	/* by-reference types: per code */
	size_t		n_levels;
	size_t		level_capacity;
	struct MappedArray *level_array;
} KeyColumn;

/*
 * Rows read but not yet coded: the core codes a batch at a time so that
 * the cache misses of its dictionaries overlap. Each key of the batch is
 * kept as its Datum (by value) or as a copy of its bytes in buffer
 * (by reference: the slot's memory is the next row's once this one is read).
 * Slot k of a row is key k; the unit's is slot n_keys. A slot's keys are
 * side by side (values[s * BATCH_ROWS + r]): a by-value slot goes to the
 * core as it is, an array of words.
 */
#define BATCH_ROWS 64
/* A batch is coded early once its keys take this much (long text keys). */
#define BATCH_BYTES (1024 * 1024)

typedef struct RowBatch
{
	int			n_rows;
	int			n_slots;
	Datum	   *values;			/* n_slots * BATCH_ROWS: a Datum, or an offset into buffer (a by-reference key
								 * without equality classes) */
	bool	   *nulls;
	StringInfoData buffer;
	/* scratch for one column's call into the core */
	const void **data;
	uint32	   *size;
	uint32	   *codes;			/* a row-numbered column's codes, checked, not kept */
	idp_interrupts interrupts;	/* the coding's poller, made once per read (it reads the clock) */
} RowBatch;

/*
 * Copies of by-reference keys, packed into large chunks: one allocation per
 * chunk instead of one per key.
 */
typedef struct KeyArena
{
	char	   *next;
	Size		left;
	Size		chunks;			/* allocated so far: each chunk doubles, up to 32 MB */
} KeyArena;

#define KEY_ARENA_CHUNK (1024 * 1024)
#define KEY_ARENA_MAX_CHUNK (32 * 1024 * 1024)

/*
 * An array that grows while rows arrive, in an anonymous mapping of its own:
 * it grows by mremap, which moves page tables instead of copying the
 * elements and faulting every page in again (what repalloc's copy of
 * hundreds of megabytes cost), and is marked for huge pages. Unmapped when
 * the memory context holding it goes, error or not.
 */
typedef struct MappedArray
{
	void	   *data;
	Size		bytes;
	MemoryContextCallback unmap;
} MappedArray;

typedef struct RowCollector
{
	DestReceiver pub;
	QueryRows  *rows;
	MemoryContext cxt;
	Oid			count_type;
} RowCollector;

/* source_checks.c */
extern void check_single_select(const char *query, const char *what);
extern bool is_count_type(Oid type);

/* source_memory.c */
extern void *alloc_huge(Size bytes);
extern MappedArray *new_mapped_array(void);
extern void *grow_mapped(MappedArray *array, Size bytes);
extern Size source_memory_limit(void);
extern void refuse_memory(const QueryRows *rows, Size more) pg_attribute_noreturn();
extern void account(QueryRows *rows, Size bytes);
extern void check_room(QueryRows *rows, Size bytes);
extern void check_detoast_room(QueryRows *rows, const KeyColumn *column, Datum value);
extern Datum arena_copy(QueryRows *rows, const KeyColumn *column, Datum value);

/* source_keys.c */
extern int	key_attno(const QueryRows *rows, int k);
extern int	unit_attno(TupleDesc desc, const QueryRows *rows);
extern void init_key_column(KeyColumn *column, Oid type, Oid collation, const char *kind, const char *name,
							const char *what, MemoryContext cxt);
extern void binary_image(const KeyColumn *column, const Datum *datum, const void **data, uint32 *size);
extern Datum class_representative(QueryRows *rows, KeyColumn *column, Datum value);

/* source_receiver.c */
extern void collector_startup(DestReceiver *self, int operation, TupleDesc desc);
extern bool collector_receive(TupleTableSlot *slot, DestReceiver *self);
extern void collector_noop(DestReceiver *self);
extern void code_batch(QueryRows *rows);

/* query_rows.c */
extern char *describe_row(const QueryRows *rows, size_t row);

#endif
