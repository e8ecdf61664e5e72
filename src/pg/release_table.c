/*
 * Reading a release table for its error bars (margin_of_error.h): each
 * row's identity, its key columns coded as the core wants them, and the
 * level columns, in one scan under the statement's snapshot; then one call
 * into the core builds the structure. The caller's rights decide what is
 * read: SELECT on the table (or every column), and no row-level security
 * (the scan would see rows the caller's query does not).
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "optimizer/plancat.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/rls.h"
#include "utils/snapmgr.h"
#include "utils/typcache.h"

#include "cancellable_sort.h"
#include "core_bridge.h"
#include "gucs.h"
#include "key_equality.h"
#include "margin_of_error.h"

#define BATCH 1024

/* A value's binary image: a varlena's data (detoasted), a cstring's characters, other types' bytes. */
static void
image_of(Form_pg_attribute att, Datum value, const void **data, uint32 *size)
{
	if (att->attlen == -1)
	{
		struct varlena *v = PG_DETOAST_DATUM_PACKED(value);

		*data = VARDATA_ANY(v);
		*size = VARSIZE_ANY_EXHDR(v);
	}
	else if (att->attlen == -2)
	{
		*data = DatumGetCString(value);
		*size = strlen(DatumGetCString(value));
	}
	else
	{
		*data = DatumGetPointer(value);
		*size = att->attlen;
	}
}

/* Two lanes of a multiply-rotate hash (xxHash's round): 128 bits of a row. */
#define P1 UINT64CONST(0x9E3779B185EBCA87)
#define P2 UINT64CONST(0xC2B2AE3D27D4EB4F)
#define P3 UINT64CONST(0x165667B19E3779F9)

static inline uint64
rotl64(uint64 x, int r)
{
	return (x << r) | (x >> (64 - r));
}

static inline void
mix_word(idp_row_id *h, uint64 w)
{
	h->hi = rotl64(h->hi + w * P2, 31) * P1;
	h->lo = rotl64(h->lo + (w ^ P3) * P1, 27) * P2;
}

static inline uint64
avalanche(uint64 h)
{
	h ^= h >> 33;
	h *= UINT64CONST(0xff51afd7ed558ccd);
	h ^= h >> 33;
	h *= UINT64CONST(0xc4ceb9fe1a85ec53);
	return h ^ (h >> 33);
}

static void
mix_bytes(idp_row_id *h, const unsigned char *p, uint32 n)
{
	uint64		w;

	mix_word(h, n);
	for (; n >= 8; p += 8, n -= 8)
	{
		memcpy(&w, p, 8);
		mix_word(h, w);
	}
	if (n > 0)
	{
		w = 0;
		memcpy(&w, p, n);
		mix_word(h, w);
	}
}

void
row_identity(TupleDesc desc, const Datum *values, const bool *nulls, idp_row_id *id)
{
	uint64		null_bits = 0;
	int			a;

	/*
	 * The non-NULL values in column order (a by-value one as its Datum, any
	 * other as its length and bytes), then which columns were NULL: two
	 * rows differ in the input unless they are the same row.
	 */
	id->hi = P1;
	id->lo = P3;
	for (a = 0; a < desc->natts; a++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, a);
		const void *data;
		uint32		size;

		if (att->attisdropped)
			;
		else if (nulls[a])
			null_bits |= UINT64CONST(1) << (a % 64);
		else if (att->attbyval)
			mix_word(id, (uint64) values[a]);
		else
		{
			image_of(att, values[a], &data, &size);
			mix_bytes(id, data, size);
		}
		/* Each 64 columns' NULLs at a fixed place in the stream. */
		if (a % 64 == 63)
		{
			mix_word(id, null_bits);
			null_bits = 0;
		}
	}
	mix_word(id, null_bits ^ ((uint64) desc->natts << 48));
	id->hi = avalanche(id->hi ^ rotl64(id->lo, 17));
	id->lo = avalanche(id->lo ^ id->hi);
}

/* The table's columns for the layout: names and the types it tells apart. */
static void
table_columns(TupleDesc desc, int *attnos, idp_table_columns *columns, idp_column_type *types, const char **names)
{
	int			a;

	columns->n_columns = 0;
	for (a = 0; a < desc->natts; a++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, a);
		size_t		k = columns->n_columns;

		if (att->attisdropped)
			continue;
		attnos[k] = a;
		names[k] = NameStr(att->attname);
		types[k] = att->atttypid == INT4OID ? IDP_COLUMN_INT4 : att->atttypid == INT8OID ? IDP_COLUMN_INT8
			: att->atttypid == FLOAT8OID ? IDP_COLUMN_FLOAT8 : att->atttypid == NUMERICOID ? IDP_COLUMN_NUMERIC
			: IDP_COLUMN_OTHER;
		columns->n_columns++;
	}
	columns->names = names;
	columns->types = types;
}

static void
free_encoder(void *arg)
{
	idp_key_encoder **encoder = (idp_key_encoder **) arg;

	idp_key_encoder_free(*encoder);
	*encoder = NULL;
}

/* An encoder for a key column, freed with cxt (on error too). */
static idp_key_encoder *
new_encoder(bool byval, MemoryContext cxt)
{
	MemoryContextCallback *callback = MemoryContextAlloc(cxt, sizeof(MemoryContextCallback));
	idp_key_encoder **slot = MemoryContextAlloc(cxt, sizeof(idp_key_encoder *));

	*slot = byval ? idp_key_encoder_new_words() : idp_key_encoder_new();
	if (*slot == NULL)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
	callback->func = free_encoder;
	callback->arg = slot;
	MemoryContextRegisterResetCallback(cxt, callback);
	return *slot;
}

/* One key column's batch of images, waiting to be coded. */
typedef struct KeyBatch
{
	Form_pg_attribute att;
	idp_key_encoder *encoder;
	const void **data;
	uint32	   *size;
	uint64	   *words;
	bool	   *nulls;
} KeyBatch;

/* The rows read so far, growing by doubling. */
typedef struct TableRows
{
	TupleDesc	desc;
	const int  *attnos;			/* table column -> attribute */
	idp_row_layout layout;
	size_t		n;
	size_t		capacity;
	idp_row_id *ids;
	uint32	  **codes;			/* per key column */
	int32	   *levels[2];
	Datum	   *periods;		/* a stream's periods, to sort the rows by */
	KeyBatch   *keys;
	size_t		expected;		/* the planner's estimate of the rows, to size the arrays once */
	size_t		batch_start;
	MemoryContext rows_cxt;		/* the arrays above */
	MemoryContext batch_cxt;	/* what one batch's rows need: detoasted values, images */
} TableRows;

static void *
grow(TableRows *t, void *array, size_t element)
{
	return array == NULL ? MemoryContextAllocHuge(t->rows_cxt, element * t->capacity)
		: repalloc_huge(array, element * t->capacity);
}

static void
reserve(TableRows *t)
{
	size_t		k;
	int			a;

	if (t->n < t->capacity)
		return;
	if (t->capacity >= PG_UINT32_MAX / 2)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("a release table of more than 2^31 rows has no error bars")));
	t->capacity = t->capacity ? 2 * t->capacity : Max(t->expected, 4096);
	t->ids = grow(t, t->ids, sizeof(idp_row_id));
	for (k = 0; k < t->layout.n_keys; k++)
		t->codes[k] = grow(t, t->codes[k], sizeof(uint32));
	for (a = 0; a < (int) t->layout.n_level_columns; a++)
		if (t->layout.level_column[a] >= 0)
			t->levels[a] = grow(t, t->levels[a], sizeof(int32));
	if (t->layout.period_order)
		t->periods = grow(t, t->periods, sizeof(Datum));
}

/* Codes the rows batch_start .. n of every key column, then starts a new batch. */
static void
flush_batch(TableRows *t)
{
	size_t		n = t->n - t->batch_start;
	Size		limit = (Size) dp_max_source_memory * 1024;
	size_t		k;

	for (k = 0; k < t->layout.n_keys && n > 0; k++)
	{
		KeyBatch   *b = &t->keys[k];
		idp_error	error;
		idp_interrupts interrupts = pg_interrupts();
		uint32	   *codes = t->codes[k] + t->batch_start;
		idp_status	status = b->att->attbyval
			? idp_key_encode_words(b->encoder, n, b->words, b->nulls, codes, &interrupts, limit, &error)
			: idp_key_encode(b->encoder, n, b->data, b->size, codes, &interrupts, limit, &error);

		if (status != IDP_OK)
			raise_core_error(&error);
	}
	t->batch_start = t->n;
	MemoryContextReset(t->batch_cxt);
}

/* Row n's key k into the batch: a by-value key's Datum, a copy of another's image. */
static void
keep_key(TableRows *t, size_t k, Datum value, bool isnull)
{
	KeyBatch   *b = &t->keys[k];
	size_t		i = t->n - t->batch_start;
	const void *data;
	uint32		size;
	void	   *copy;

	b->nulls[i] = isnull;
	b->words[i] = isnull ? 0 : (uint64) value;
	b->data[i] = NULL;
	b->size[i] = 0;
	if (isnull || b->att->attbyval)
		return;
	image_of(b->att, value, &data, &size);
	copy = palloc(Max(size, 1));
	memcpy(copy, data, size);
	b->data[i] = copy;
	b->size[i] = size;
}

static void
read_row(TableRows *t, TupleTableSlot *slot)
{
	size_t		k;
	int			a;

	reserve(t);
	row_identity(t->desc, slot->tts_values, slot->tts_isnull, &t->ids[t->n]);
	for (k = 0; k < t->layout.n_keys; k++)
		keep_key(t, k, slot->tts_values[t->attnos[k]], slot->tts_isnull[t->attnos[k]]);
	for (a = 0; a < (int) t->layout.n_level_columns; a++)
		if (t->layout.level_column[a] >= 0)
		{
			int			at = t->attnos[t->layout.level_column[a]];

			t->levels[a][t->n] = slot->tts_isnull[at] ? -1 : DatumGetInt32(slot->tts_values[at]);
		}
	t->n++;
}

/*
 * Every row of the table, under the statement's snapshot, from its first
 * block: not joined to another scan of the table midway
 * (synchronize_seqscans), which would read a release's rows rotated, out of
 * the key order they were written in, so that its hierarchy's leaves would
 * need sorting again (1.3 s of 5 s for the 8M blocks of a national tree).
 */
static void
scan_table(Relation rel, TableRows *t)
{
	TupleTableSlot *slot = table_slot_create(rel, NULL);
	TableScanDesc scan = table_beginscan_strat(rel, GetActiveSnapshot(), 0, NULL, true, false);
	MemoryContext outer = CurrentMemoryContext;

	while (table_scan_getnextslot(scan, ForwardScanDirection, slot))
	{
		CHECK_FOR_INTERRUPTS();
		slot_getallattrs(slot);
		if (t->layout.period_order)
		{
			Form_pg_attribute att = TupleDescAttr(t->desc, t->attnos[0]);

			reserve(t);
			MemoryContextSwitchTo(t->rows_cxt);
			t->periods[t->n] = slot->tts_isnull[t->attnos[0]] ? (Datum) 0
				: datumCopy(slot->tts_values[t->attnos[0]], att->attbyval, att->attlen);
		}
		MemoryContextSwitchTo(t->batch_cxt);
		read_row(t, slot);
		MemoryContextSwitchTo(outer);
		if (t->n - t->batch_start == BATCH)
			flush_batch(t);
	}
	flush_batch(t);
	table_endscan(scan);
	ExecDropSingleTupleTableSlot(slot);
}

/* A stream's rows in period order (its periods are numbered so). */
typedef struct PeriodOrder
{
	const Datum *periods;
	FmgrInfo   *cmp;
	Oid			collation;
} PeriodOrder;

static int
compare_periods(const void *a, const void *b, void *arg)
{
	const PeriodOrder *order = arg;
	Datum		x = order->periods[*(const uint32 *) a];
	Datum		y = order->periods[*(const uint32 *) b];

	return DatumGetInt32(FunctionCall2Coll(order->cmp, order->collation, x, y));
}

static void
sort_by_period(TableRows *t)
{
	Form_pg_attribute att = TupleDescAttr(t->desc, t->attnos[0]);
	TypeCacheEntry *type = lookup_type_cache(att->atttypid, TYPECACHE_CMP_PROC_FINFO);
	PeriodOrder order = {t->periods, &type->cmp_proc_finfo, att->attcollation};
	uint32	   *by_period = palloc(sizeof(uint32) * Max(t->n, 1));
	idp_row_id *ids = palloc(sizeof(idp_row_id) * Max(t->n, 1));
	uint32	   *codes = palloc(sizeof(uint32) * Max(t->n, 1));
	size_t		i;

	if (!OidIsValid(type->cmp_proc))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FUNCTION),
				 errmsg("a stream's period type %s has no ordering", format_type_be(att->atttypid))));
	for (i = 0; i < t->n; i++)
		by_period[i] = (uint32) i;
	cancellable_sort(by_period, t->n, sizeof(uint32), compare_periods, &order);
	for (i = 0; i < t->n; i++)
	{
		ids[i] = t->ids[by_period[i]];
		codes[i] = t->codes[0][by_period[i]];
	}
	t->ids = ids;
	t->codes[0] = codes;
}

/* Each key column's codes as the core takes them, with the code of NULL. */
static idp_key_codes *
key_codes(TableRows *t)
{
	idp_key_codes *out = palloc0(sizeof(idp_key_codes) * Max(t->layout.n_keys, 1));
	size_t		k;

	for (k = 0; k < t->layout.n_keys; k++)
	{
		idp_key_dictionary d = idp_key_encoder_dictionary(t->keys[k].encoder);
		uint32		c;

		out[k].codes = t->codes[k];
		out[k].n_levels = (uint32) d.n_levels;
		out[k].null_code = PG_UINT32_MAX;
		for (c = 0; c < d.n_levels; c++)
			if (idp_key_is_null(&d, c))
				out[k].null_code = c;
	}
	return out;
}

/* The table's columns and layout under this law; the key columns' batches. */
static void
start_rows(Relation rel, const ReleaseLaw *law, TableRows *t, idp_table_columns *columns)
{
	TupleDesc	desc = RelationGetDescr(rel);
	int		   *attnos = palloc(sizeof(int) * Max(desc->natts, 1));
	idp_column_type *types = palloc(sizeof(idp_column_type) * Max(desc->natts, 1));
	const char **names = palloc(sizeof(char *) * Max(desc->natts, 1));
	idp_error	error;
	size_t		k;
	BlockNumber pages;
	double		tuples;
	double		visible;

	table_columns(desc, attnos, columns, types, names);
	columns->n_key_names = law->n_key_names;
	columns->key_names = (const char *const *) law->key_names;
	memset(t, 0, sizeof *t);
	if (idp_accuracy_layout(law->text, columns, &t->layout, &error) != IDP_OK)
		raise_core_error(&error);
	t->desc = desc;
	t->attnos = attnos;
	estimate_rel_size(rel, NULL, &pages, &tuples, &visible);
	t->expected = tuples > 0 ? (size_t) Min(tuples * 1.05 + 1024, (double) (PG_UINT32_MAX / 4)) : 0;
	t->rows_cxt = CurrentMemoryContext;
	t->batch_cxt = AllocSetContextCreate(CurrentMemoryContext, "dp release batch", ALLOCSET_DEFAULT_SIZES);
	t->codes = palloc0(sizeof(uint32 *) * Max(t->layout.n_keys, 1));
	t->keys = palloc0(sizeof(KeyBatch) * Max(t->layout.n_keys, 1));
	for (k = 0; k < t->layout.n_keys; k++)
	{
		KeyBatch   *b = &t->keys[k];

		b->att = TupleDescAttr(desc, attnos[k]);
		/* Keys a release would refuse (json, point) have no error bars either. */
		check_key_type_has_equality(b->att->atttypid, "key", NameStr(b->att->attname), "release table");
		b->encoder = new_encoder(b->att->attbyval, CurrentMemoryContext);
		b->data = palloc(sizeof(void *) * BATCH);
		b->size = palloc(sizeof(uint32) * BATCH);
		b->words = palloc(sizeof(uint64) * BATCH);
		b->nulls = palloc(sizeof(bool) * BATCH);
	}
}

/*
 * Reads the release table rel (opened by the caller, rights checked) into
 * the core's structure for this law. Everything it allocates lives in a
 * context deleted before it returns (on error too, with the encoders).
 */
idp_accuracy *
read_release_table(Relation rel, const ReleaseLaw *law)
{
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext, "dp release table", ALLOCSET_DEFAULT_SIZES);
	MemoryContext outer = MemoryContextSwitchTo(cxt);
	TableRows	t;
	idp_table_columns columns;
	idp_release_rows rows;
	idp_interrupts interrupts = pg_interrupts();
	idp_accuracy *accuracy = NULL;
	idp_error	error;
	idp_status	status;

	start_rows(rel, law, &t, &columns);
	scan_table(rel, &t);
	if (t.layout.period_order)
		sort_by_period(&t);
	rows.n_rows = t.n;
	rows.ids = t.ids;
	rows.keys = key_codes(&t);
	rows.levels = (const int32 *const *) t.levels;
	status = idp_accuracy_prepare(law->text, &columns, &rows, &interrupts, &accuracy, &error);
	MemoryContextSwitchTo(outer);
	MemoryContextDelete(cxt);
	if (status != IDP_OK)
		raise_core_error(&error);
	return accuracy;
}
