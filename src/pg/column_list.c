/*
 * dp.column_list(columns): a governed release's column definition list,
 * parsed as exactly that. The text an administrator passes becomes the
 * release table, written to later by every draw; so it may hold names and
 * types only (no defaults, constraints, collations or table clauses, which
 * would run code or change the table), and only types whose owner cannot
 * redefine them behind the release (a domain's check runs at every draw).
 * Returns the list rebuilt from what was parsed, names quoted.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "parser/parse_type.h"
#include "parser/parser.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "utils/typcache.h"

#include "arguments.h"

PG_FUNCTION_INFO_V1(dp_column_list);

static void
refuse(const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("columns must be a column definition list"),
			 errdetail("%s", detail),
			 errhint("Name each column and its type, e.g. 'county text, edu text, n bigint'.")));
}

/* The type, its element, base and attribute types: owned by the caller or a superuser. */
static void
check_type_owner(Oid type, int depth)
{
	HeapTuple	tuple;
	Form_pg_type form;
	Oid			owner;
	Oid			inner[2];
	char		kind;
	Oid			relid;
	int			i;

	if (depth > 8)
		return;
	tuple = SearchSysCache1(TYPEOID, ObjectIdGetDatum(type));
	if (!HeapTupleIsValid(tuple))
		elog(ERROR, "cache lookup failed for type %u", type);
	form = (Form_pg_type) GETSTRUCT(tuple);
	owner = form->typowner;
	inner[0] = form->typelem;
	inner[1] = form->typbasetype;
	kind = form->typtype;
	relid = form->typrelid;
	ReleaseSysCache(tuple);
	if (owner != GetUserId() && !superuser_arg(owner))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("column type %s is owned by role %s", format_type_be(type), GetUserNameFromId(owner, false)),
				 errdetail("Every draw writes the release table; the owner of a column's type could redefine it "
						   "(a domain's check) to run code then."),
				 errhint("Use types owned by you or by a superuser.")));
	for (i = 0; i < 2; i++)
		if (OidIsValid(inner[i]))
			check_type_owner(inner[i], depth + 1);
	if (kind == TYPTYPE_COMPOSITE && OidIsValid(relid))
	{
		TupleDesc	desc = lookup_rowtype_tupdesc(type, -1);

		for (i = 0; i < desc->natts; i++)
			if (!TupleDescAttr(desc, i)->attisdropped)
				check_type_owner(TupleDescAttr(desc, i)->atttypid, depth + 1);
		ReleaseTupleDesc(desc);
	}
}

Datum
dp_column_list(PG_FUNCTION_ARGS)
{
	char	   *columns = required_text(fcinfo, 0, "columns");
	List	   *statements;
	CreateStmt *create;
	StringInfoData list;
	ListCell   *cell;

	statements = raw_parser(psprintf("CREATE TABLE release (%s)", columns), RAW_PARSE_DEFAULT);
	if (list_length(statements) != 1 || !IsA(linitial_node(RawStmt, statements)->stmt, CreateStmt))
		refuse("It must not close the list or add statements.");
	create = (CreateStmt *) linitial_node(RawStmt, statements)->stmt;
	if (create->inhRelations != NIL || create->partbound != NULL || create->partspec != NULL ||
		create->ofTypename != NULL || create->constraints != NIL || create->options != NIL ||
		create->oncommit != ONCOMMIT_NOOP || create->tablespacename != NULL || create->accessMethod != NULL)
		refuse("It must not add table clauses.");
	if (create->tableElts == NIL)
		refuse("It is empty.");
	initStringInfo(&list);
	foreach(cell, create->tableElts)
	{
		ColumnDef  *column;
		Oid			type;
		int32		typmod;

		if (!IsA(lfirst(cell), ColumnDef))
			refuse("It may hold column names and types only (no constraints or LIKE).");
		column = lfirst_node(ColumnDef, cell);
		if (column->constraints != NIL || column->raw_default != NULL || column->cooked_default != NULL ||
			column->collClause != NULL || column->identity || column->generated || column->compression != NULL ||
			column->storage != 0 || column->fdwoptions != NIL)
			refuse(psprintf("Column \"%s\" has more than a name and a type.", column->colname));
		typenameTypeIdAndMod(NULL, column->typeName, &type, &typmod);
		check_type_owner(type, 0);
		appendStringInfo(&list, "%s%s %s", list.len > 0 ? ", " : "", quote_identifier(column->colname),
						 format_type_with_typemod(type, typmod));
	}
	PG_RETURN_TEXT_P(cstring_to_text(list.data));
}
