/*
 * A source's key and unit columns: where they are in the result, their
 * dictionaries in the core, and the values given to them: a key's binary
 * image, the representative of its class under SQL equality
 * (source_reader_internal.h).
 */
#include "postgres.h"

#include "utils/lsyscache.h"

#include "source_reader_internal.h"

/* The result column holding key k: the unit column is skipped. */
int
key_attno(const QueryRows *rows, int k)
{
	return rows->unit_attno >= 0 && k >= rows->unit_attno ? k + 1 : k;
}

/* Where the privacy unit's column is, by name; an unknown name is refused. */
int
unit_attno(TupleDesc desc, const QueryRows *rows)
{
	StringInfoData names;
	int			found = -1;
	int			a;

	initStringInfo(&names);
	for (a = 0; a < desc->natts; a++)
	{
		const char *name = NameStr(TupleDescAttr(desc, a)->attname);

		appendStringInfo(&names, "%s%s", a ? ", " : "", name);
		if (strcmp(name, rows->unit_column) != 0)
			continue;
		if (found >= 0)
			ereport(ERROR,
					(errcode(ERRCODE_AMBIGUOUS_COLUMN),
					 errmsg("%s returns two columns named \"%s\"", rows->what, rows->unit_column)));
		found = a;
	}
	if (found < 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("privacy unit column \"%s\" is not in the %s", rows->unit_column, rows->what),
				 errdetail("The %s returns: %s.", rows->what, names.data),
				 errhint("With a privacy unit the source returns rows, not counts: the unit column and the key "
						 "columns, e.g. SELECT patient_id, clinic FROM visits.")));
	if (desc->natts < 2)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("the %s returns only the privacy unit", rows->what),
				 errhint("Return the unit column and at least one key column.")));
	return found;
}

/* Frees a column's dictionary with the memory context holding the rows. */
static void
free_encoder(void *arg)
{
	KeyColumn  *column = (KeyColumn *) arg;

	idp_key_encoder_free(column->encoder);
	column->encoder = NULL;
}

/*
 * A column's storage, its dictionary and its equality classes, freed when
 * cxt is reset or deleted. kind and name say which column, for errors.
 */
void
init_key_column(KeyColumn *column, Oid type, Oid collation, const char *kind, const char *name, const char *what,
				MemoryContext cxt)
{
	MemoryContextCallback *callback;
	Oid			output_fn;
	bool		varlena;

	memset(column, 0, sizeof *column);
	getTypeOutputInfo(type, &output_fn, &varlena);
	fmgr_info_cxt(output_fn, &column->output_fn, cxt);
	get_typlenbyval(type, &column->typlen, &column->typbyval);
	column->typstorage = get_typstorage(type);
	column->equality = key_equality_new(type, collation, kind, name, what, cxt);
	/* The callback first: nothing may fail between creating and registering. */
	callback = MemoryContextAlloc(cxt, sizeof(MemoryContextCallback));
	/*
	 * A by-value key's image is its Datum: 8 bytes (binary_image). A
	 * by-reference key is kept once, in the arena (code_slot): the encoder
	 * borrows those bytes instead of copying them again.
	 */
	column->encoder = column->typbyval ? idp_key_encoder_new_words() : idp_key_encoder_new_borrowing();
	if (column->encoder == NULL)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
	callback->func = free_encoder;
	callback->arg = column;
	MemoryContextRegisterResetCallback(cxt, callback);
	column->dictionary = idp_key_encoder_dictionary(column->encoder);
	column->level_array = new_mapped_array();
}

/*
 * A key's binary image for the core: a by-value key is its Datum, an 8-byte
 * word (coded by idp_key_encode_words); a varlena its data without the
 * header, a cstring its characters, any other by-reference type its typlen
 * bytes. Equal values of a type have equal images for every type GROUP BY
 * can tell apart by its output.
 */
StaticAssertDecl(SIZEOF_DATUM == 8, "a by-value key's image is an 8-byte word (idp_key_encoder_new_words)");

void
binary_image(const KeyColumn *column, const Datum *datum, const void **data, uint32 *size)
{
	Pointer		value = DatumGetPointer(*datum);

	if (column->typlen == -1)
	{
		*data = VARDATA_ANY(value);
		*size = VARSIZE_ANY_EXHDR(value);
	}
	else if (column->typlen == -2)
	{
		*data = value;
		*size = strlen(value);
	}
	else
	{
		*data = value;
		*size = column->typlen;
	}
}

/*
 * The first value seen equal to value under SQL (key_equality.h), kept in
 * the arena (by reference) so that it outlives the read.
 */
Datum
class_representative(QueryRows *rows, KeyColumn *column, Datum value)
{
	uint32		hash;
	bool		found;
	Datum		kept = key_equality_find(column->equality, value, &hash, &found);

	if (found)
		return kept;
	account(rows, key_equality_growth(column->equality));
	kept = column->typbyval ? value : arena_copy(rows, column, value);
	key_equality_add(column->equality, kept, hash);
	return kept;
}
