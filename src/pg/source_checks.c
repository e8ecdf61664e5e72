/*
 * The source reader's checks of a query before it runs: one plain SELECT,
 * without INTO or a data-modifying WITH (source_reader_internal.h).
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "nodes/parsenodes.h"
#include "parser/parser.h"

#include "source_reader_internal.h"

/* A syntax error's position points into the query text, as SPI does it. */
static void
query_error_callback(void *arg)
{
	const char *query = (const char *) arg;
	int			position = geterrposition();

	if (position > 0)
	{
		errposition(0);
		internalerrposition(position);
		internalerrquery(query);
	}
}

static List *
parse_query(const char *query)
{
	ErrorContextCallback callback;
	List	   *statements;

	callback.callback = query_error_callback;
	callback.arg = unconstify(char *, query);
	callback.previous = error_context_stack;
	error_context_stack = &callback;
	statements = raw_parser(query, RAW_PARSE_DEFAULT);
	error_context_stack = callback.previous;
	return statements;
}

/* Only a single plain SELECT (or VALUES/TABLE), without INTO, is accepted. */
void
check_single_select(const char *query, const char *what)
{
	List	   *statements = parse_query(query);
	Node	   *statement;
	ListCell   *cell;

	if (list_length(statements) != 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be a single SELECT query", what),
				 errdetail("It contains %d statements.", list_length(statements))));
	statement = linitial_node(RawStmt, statements)->stmt;
	if (!IsA(statement, SelectStmt) || ((SelectStmt *) statement)->intoClause != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be a single SELECT query", what),
				 errhint("The %s is run read-only; it may not modify data.", what)));
	if (((SelectStmt *) statement)->withClause == NULL)
		return;
	foreach(cell, ((SelectStmt *) statement)->withClause->ctes)
	{
		CommonTableExpr *cte = lfirst_node(CommonTableExpr, cell);

		if (!IsA(cte->ctequery, SelectStmt))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s must be a single SELECT query", what),
					 errdetail("WITH query \"%s\" modifies data.", cte->ctename)));
	}
}

bool
is_count_type(Oid type)
{
	return type == INT2OID || type == INT4OID || type == INT8OID || type == NUMERICOID;
}
