/*
 * dp.source_relations(query): every table, view and partition a query
 * reads, after view expansion. Governed releases use it to refuse a source
 * that PUBLIC can read and an analyst who could read around the release.
 * Analysis only: the query is parsed and rewritten, never planned or run.
 */
#include "postgres.h"

#include "catalog/pg_inherits.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "nodes/nodeFuncs.h"
#include "nodes/pg_list.h"
#include "parser/parser.h"
#include "tcop/tcopprot.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "storage/lockdefs.h"

#include "arguments.h"

PG_FUNCTION_INFO_V1(dp_source_relations);

static bool collect_relations(Node *node, List **relids);

static bool
collect_from_query(Query *query, List **relids)
{
	ListCell   *cell;

	foreach(cell, query->rtable)
	{
		RangeTblEntry *rte = lfirst_node(RangeTblEntry, cell);

		if (rte->rtekind == RTE_RELATION)
			*relids = list_append_unique_oid(*relids, rte->relid);
	}
	return query_tree_walker(query, collect_relations, relids, 0);
}

/* Every range table of every (sub)query, CTE and sublink. */
static bool
collect_relations(Node *node, List **relids)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
		return collect_from_query((Query *) node, relids);
	return expression_tree_walker(node, collect_relations, relids);
}

/* A partitioned or inherited table is readable through each child too. */
static List *
with_descendants(List *relids)
{
	List	   *all = NIL;
	ListCell   *cell;

	foreach(cell, relids)
	{
		List	   *family = find_all_inheritors(lfirst_oid(cell), AccessShareLock, NULL);
		ListCell   *member;

		foreach(member, family)
			all = list_append_unique_oid(all, lfirst_oid(member));
	}
	return all;
}

Datum
dp_source_relations(PG_FUNCTION_ARGS)
{
	char	   *query = required_text(fcinfo, 0, "source");
	List	   *statements = raw_parser(query, RAW_PARSE_DEFAULT);
	List	   *relids = NIL;
	ListCell   *cell;
	Datum	   *elements;
	int			n = 0;

	if (list_length(statements) != 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("source must be a single SELECT query"),
				 errdetail("It contains %d statements.", list_length(statements))));
	foreach(cell, pg_analyze_and_rewrite_fixedparams(linitial_node(RawStmt, statements), query, NULL, 0, NULL))
		collect_from_query(lfirst_node(Query, cell), &relids);
	relids = with_descendants(relids);

	elements = palloc(sizeof(Datum) * Max(list_length(relids), 1));
	foreach(cell, relids)
		elements[n++] = ObjectIdGetDatum(lfirst_oid(cell));
	PG_RETURN_ARRAYTYPE_P(construct_array(elements, n, REGCLASSOID, sizeof(Oid), true, TYPALIGN_INT));
}
