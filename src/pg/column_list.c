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

#include "fmgr.h"
#include "nodes/parsenodes.h"
#include "parser/parse_type.h"
#include "parser/parser.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "arguments.h"
#include "object_owners.h"

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
		check_type_owners(type);
		appendStringInfo(&list, "%s%s %s", list.len > 0 ? ", " : "", quote_identifier(column->colname),
						 format_type_with_typemod(type, typmod));
	}
	PG_RETURN_TEXT_P(cstring_to_text(list.data));
}
