/*
 * The memory a source's rows take, counted against dp.max_source_memory
 * before it is allocated: arrays that grow in mappings of their own, and
 * the arena that keeps each distinct by-reference key once
 * (source_reader_internal.h).
 */
#include "postgres.h"

#include <sys/mman.h>

#include "access/detoast.h"
#include "utils/datum.h"
#include "utils/memutils.h"

#include "gucs.h"

#include "source_reader_internal.h"

/*
 * Marks the whole 2 MB pages of a large array for transparent huge pages
 * (a hint, as large_buffer.hpp does in the core): filling ten million rows'
 * arrays otherwise costs a page fault per 4 kB, several microseconds each on
 * a virtual machine, which was a fifth of a privacy-unit release's time.
 */
static void *
advise_huge_pages(void *pointer, Size bytes)
{
#ifdef MADV_HUGEPAGE
	const uintptr_t huge = (uintptr_t) 1 << 21;
	uintptr_t	first = ((uintptr_t) pointer + huge - 1) & ~(huge - 1);
	uintptr_t	last = ((uintptr_t) pointer + bytes) & ~(huge - 1);

	if (last > first)
		(void) madvise((void *) first, last - first, MADV_HUGEPAGE);
#endif
	return pointer;
}

void *
alloc_huge(Size bytes)
{
	return advise_huge_pages(MemoryContextAllocHuge(CurrentMemoryContext, bytes), bytes);
}

static void
unmap_array(void *arg)
{
	MappedArray *array = (MappedArray *) arg;

	if (array->data != NULL)
		munmap(array->data, array->bytes);
	array->data = NULL;
	array->bytes = 0;
}

/* A new, empty array, unmapped with the current memory context. */
MappedArray *
new_mapped_array(void)
{
	MappedArray *array = palloc0(sizeof(MappedArray));

	array->unmap.func = unmap_array;
	array->unmap.arg = array;
	MemoryContextRegisterResetCallback(CurrentMemoryContext, &array->unmap);
	return array;
}

/* The array's data, with room for bytes (new memory reads as zeros). */
void *
grow_mapped(MappedArray *array, Size bytes)
{
	void	   *grown;

	if (bytes <= array->bytes)
		return array->data;
	if (array->data == NULL)
		grown = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	else
		grown = mremap(array->data, array->bytes, bytes, MREMAP_MAYMOVE);
	if (grown == MAP_FAILED)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory"),
				 errdetail("Failed on request of size %zu: %m.", (size_t) bytes)));
#ifdef MADV_HUGEPAGE
	/*
	 * The whole mapping, not only its whole huge pages: advice on part of it
	 * would split it, and mremap cannot grow a range that spans two.
	 */
	(void) madvise(grown, bytes, MADV_HUGEPAGE);
#endif
	array->data = grown;
	array->bytes = bytes;
	return array->data;
}

Size
source_memory_limit(void)
{
	return (Size) dp_max_source_memory * 1024;
}

void
refuse_memory(const QueryRows *rows, Size more)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("%s needs more than dp.max_source_memory (%d kB) to hold", rows->what,
					dp_max_source_memory),
			 more > 0 ? errdetail("%zu rows were read, their keys and counts take %zu kB, and the next ones need %zu kB more.",
								  rows->n_rows, rows->bytes / 1024, (more + 1023) / 1024)
			 : errdetail("%zu rows were read, their keys and counts take %zu kB, and a key dictionary must grow.",
						 rows->n_rows, rows->bytes / 1024),
			 errhint("Aggregate to fewer or shorter keys, or ask a superuser to raise dp.max_source_memory.")));
}

/*
 * Counts memory against dp.max_source_memory before it is allocated: the
 * caller allocates `bytes` only if this returns.
 */
void
account(QueryRows *rows, Size bytes)
{
	if (bytes > source_memory_limit() || rows->bytes > source_memory_limit() - bytes)
		refuse_memory(rows, bytes);
	rows->bytes += bytes;
}

/*
 * Refuses unless `bytes` more fit under dp.max_source_memory now: for memory
 * held only briefly (a key detoasted to be copied), which is not counted.
 */
void
check_room(QueryRows *rows, Size bytes)
{
	if (bytes > source_memory_limit() || rows->bytes > source_memory_limit() - bytes)
		refuse_memory(rows, bytes);
}

/* A varlena key detoasted takes its raw size: checked before it is. */
void
check_detoast_room(QueryRows *rows, const KeyColumn *column, Datum value)
{
	if (column->typlen == -1 && VARATT_IS_EXTENDED(DatumGetPointer(value)))
		check_room(rows, toast_raw_datum_size(value));
}

/*
 * A copy of a by-reference key in the arena, detoasted: its Datum. A
 * varlena of a type that allows it is kept with a one-byte header when it
 * fits one (as heap_fill_tuple stores it: every Datum read from a table
 * may be so), needing no alignment; anything else is MAXALIGNed.
 */
Datum
arena_copy(QueryRows *rows, const KeyColumn *column, Datum value)
{
	KeyArena   *arena = rows->arena;
	Pointer		source;
	Size		size;
	Size		stored;
	Size		pad = 0;
	bool		make_short = false;
	bool		packed = false;
	char	   *copy;

	/* A varlena stays packed (short header) unless compressed or external. */
	if (column->typlen == -1)
	{
		check_detoast_room(rows, column, value);
		source = (Pointer) PG_DETOAST_DATUM_PACKED(value);
		make_short = column->typstorage != TYPSTORAGE_PLAIN && VARATT_CAN_MAKE_SHORT(source);
		packed = make_short || VARATT_IS_SHORT(source);
	}
	else
		source = DatumGetPointer(value);
	size = datumGetSize(PointerGetDatum(source), false, column->typlen);
	stored = make_short ? VARATT_CONVERTED_SHORT_SIZE(source) : size;
	if (!packed && arena->next != NULL)
		pad = MAXALIGN((uintptr_t) arena->next) - (uintptr_t) arena->next;
	if (arena->next == NULL || pad + stored > arena->left)
	{
		Size		chunk = Max(MAXALIGN(stored), Min((Size) KEY_ARENA_CHUNK << Min(arena->chunks, 5), KEY_ARENA_MAX_CHUNK));

		account(rows, chunk);
		arena->next = alloc_huge(chunk);	/* MAXALIGNed */
		arena->chunks++;
		arena->left = chunk;
		pad = 0;
	}
	copy = arena->next + pad;
	if (make_short)
	{
		SET_VARSIZE_SHORT(copy, stored);
		memcpy(copy + VARHDRSZ_SHORT, VARDATA(source), stored - VARHDRSZ_SHORT);
	}
	else
		memcpy(copy, source, size);
	arena->next += pad + stored;
	arena->left -= pad + stored;
	if (source != DatumGetPointer(value))
		pfree(source);
	return PointerGetDatum(copy);
}
