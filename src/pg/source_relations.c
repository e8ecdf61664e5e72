/*
 * dp.source_relations(query): every table, view and partition a query
 * reads, after view expansion. Governed releases use it to refuse a source
 * that PUBLIC can read and an analyst who could read around the release.
 * dp.source_functions(query): the functions it reads rows from (in FROM)
 * that are not PostgreSQL's own: their bodies are opaque to that check.
 * dp.check_source_objects(query): refuses a source a governed release may
 * not store (see there).
 * Analysis only: the query is parsed and rewritten, never planned or run.
 */
#include "postgres.h"

#include "catalog/pg_aggregate.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_class.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "fmgr.h"
#include "nodes/nodeFuncs.h"
#include "nodes/pg_list.h"
#include "parser/parser.h"
#include "tcop/tcopprot.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"
#include "utils/syscache.h"
#include "storage/lockdefs.h"

#include "arguments.h"
#include "object_owners.h"
#include "source_relations.h"

PG_FUNCTION_INFO_V1(dp_source_relations);
PG_FUNCTION_INFO_V1(dp_source_functions);

typedef struct SourceObjects
{
	List	   *relids;			/* tables, views, partitions */
	List	   *funcids;		/* row-returning functions in FROM, not pg_catalog's */
	List	   *called;			/* every function called anywhere (operators' too) */
	List	   *domains;		/* domains coerced to (their checks run code) */
	List	   *operators;		/* every operator: in expressions, grouping, sorting */
	List	   *types;			/* the type of every expression */
	List	   *collations;		/* every collation an expression uses or yields */
	List	   *aggregates;		/* aggregates: their support functions run too */
} SourceObjects;

static bool collect_objects(Node *node, SourceObjects *objects);

static void
collect_functions(RangeTblEntry *rte, SourceObjects *objects)
{
	ListCell   *cell;

	foreach(cell, rte->functions)
	{
		Node	   *expr = lfirst_node(RangeTblFunction, cell)->funcexpr;

		if (IsA(expr, FuncExpr) && get_func_namespace(((FuncExpr *) expr)->funcid) != PG_CATALOG_NAMESPACE)
			objects->funcids = list_append_unique_oid(objects->funcids, ((FuncExpr *) expr)->funcid);
	}
}

/* The equality and ordering operators of GROUP BY, ORDER BY, DISTINCT, windows and set operations. */
static void
collect_sort_group_operators(List *clauses, SourceObjects *objects)
{
	ListCell   *cell;

	foreach(cell, clauses)
	{
		SortGroupClause *clause = lfirst_node(SortGroupClause, cell);

		if (OidIsValid(clause->eqop))
			objects->operators = list_append_unique_oid(objects->operators, clause->eqop);
		if (OidIsValid(clause->sortop))
			objects->operators = list_append_unique_oid(objects->operators, clause->sortop);
	}
}

static void
collect_set_operations(Node *node, SourceObjects *objects)
{
	if (node != NULL && IsA(node, SetOperationStmt))
	{
		SetOperationStmt *set = (SetOperationStmt *) node;

		collect_sort_group_operators(set->groupClauses, objects);
		collect_set_operations(set->larg, objects);
		collect_set_operations(set->rarg, objects);
	}
}

static bool
collect_from_query(Query *query, SourceObjects *objects)
{
	ListCell   *cell;

	collect_sort_group_operators(query->groupClause, objects);
	collect_sort_group_operators(query->sortClause, objects);
	collect_sort_group_operators(query->distinctClause, objects);
	foreach(cell, query->windowClause)
	{
		WindowClause *window = lfirst_node(WindowClause, cell);

		collect_sort_group_operators(window->partitionClause, objects);
		collect_sort_group_operators(window->orderClause, objects);
	}
	collect_set_operations(query->setOperations, objects);

	foreach(cell, query->rtable)
	{
		RangeTblEntry *rte = lfirst_node(RangeTblEntry, cell);

		if (rte->rtekind == RTE_RELATION)
			objects->relids = list_append_unique_oid(objects->relids, rte->relid);
		else if (rte->rtekind == RTE_FUNCTION)
			collect_functions(rte, objects);
	}
	return query_tree_walker(query, collect_objects, objects, 0);
}

static bool
note_called(Oid funcid, void *context)
{
	SourceObjects *objects = (SourceObjects *) context;

	objects->called = list_append_unique_oid(objects->called, funcid);
	return false;
}

/* Whether exprType, exprCollation and exprInputCollation apply to the node. */
static bool
is_expression(Node *node)
{
	switch (nodeTag(node))
	{
		case T_Var:
		case T_Const:
		case T_Param:
		case T_Aggref:
		case T_GroupingFunc:
		case T_WindowFunc:
		case T_SubscriptingRef:
		case T_FuncExpr:
		case T_NamedArgExpr:
		case T_OpExpr:
		case T_DistinctExpr:
		case T_NullIfExpr:
		case T_ScalarArrayOpExpr:
		case T_BoolExpr:
		case T_SubLink:
		case T_FieldSelect:
		case T_FieldStore:
		case T_RelabelType:
		case T_CoerceViaIO:
		case T_ArrayCoerceExpr:
		case T_ConvertRowtypeExpr:
		case T_CollateExpr:
		case T_CaseExpr:
		case T_CaseTestExpr:
		case T_ArrayExpr:
		case T_RowExpr:
		case T_RowCompareExpr:
		case T_CoalesceExpr:
		case T_MinMaxExpr:
		case T_SQLValueFunction:
		case T_XmlExpr:
		case T_NullTest:
		case T_BooleanTest:
		case T_CoerceToDomain:
		case T_CoerceToDomainValue:
		case T_SetToDefault:
			return true;
		default:
			return false;
	}
}

static void
note_collation(Oid collation, SourceObjects *objects)
{
	if (OidIsValid(collation))
		objects->collations = list_append_unique_oid(objects->collations, collation);
}

/* The operators an expression node applies. */
static void
collect_operators(Node *node, SourceObjects *objects)
{
	ListCell   *cell;

	if (IsA(node, OpExpr) || IsA(node, DistinctExpr) || IsA(node, NullIfExpr))
		objects->operators = list_append_unique_oid(objects->operators, ((OpExpr *) node)->opno);
	else if (IsA(node, ScalarArrayOpExpr))
		objects->operators = list_append_unique_oid(objects->operators, ((ScalarArrayOpExpr *) node)->opno);
	else if (IsA(node, RowCompareExpr))
		foreach(cell, ((RowCompareExpr *) node)->opnos)
			objects->operators = list_append_unique_oid(objects->operators, lfirst_oid(cell));
}

/*
 * Every range table of every (sub)query, CTE and sublink; every call, and
 * every operator, type and collation an expression uses.
 */
static bool
collect_objects(Node *node, SourceObjects *objects)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
		return collect_from_query((Query *) node, objects);
	(void) check_functions_in_node(node, note_called, objects);
	if (IsA(node, CoerceToDomain))
		objects->domains = list_append_unique_oid(objects->domains, ((CoerceToDomain *) node)->resulttype);
	if (IsA(node, Aggref))
		objects->aggregates = list_append_unique_oid(objects->aggregates, ((Aggref *) node)->aggfnoid);
	if (IsA(node, CollateExpr))
		note_collation(((CollateExpr *) node)->collOid, objects);
	collect_operators(node, objects);
	if (is_expression(node))
	{
		objects->types = list_append_unique_oid(objects->types, exprType(node));
		note_collation(exprCollation(node), objects);
		note_collation(exprInputCollation(node), objects);
	}
	return expression_tree_walker(node, collect_objects, objects);
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

/*
 * The objects of a single SELECT. Anything else is refused before parse
 * analysis, which would take locks on the tables an arbitrary statement
 * names.
 */
static SourceObjects
objects_of_query(const char *query)
{
	List	   *statements = raw_parser(query, RAW_PARSE_DEFAULT);
	SourceObjects objects = {NIL, NIL, NIL, NIL, NIL, NIL, NIL, NIL};
	Node	   *statement;
	ListCell   *cell;

	if (list_length(statements) != 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("source must be a single SELECT query"),
				 errdetail("It contains %d statements.", list_length(statements))));
	statement = linitial_node(RawStmt, statements)->stmt;
	if (!IsA(statement, SelectStmt) || ((SelectStmt *) statement)->intoClause != NULL ||
		((SelectStmt *) statement)->lockingClause != NIL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("source must be a single SELECT query"),
				 errhint("A governed source is read-only: no INTO, FOR UPDATE or data-modifying statement.")));
	foreach(cell, pg_analyze_and_rewrite_fixedparams(linitial_node(RawStmt, statements), query, NULL, 0, NULL))
	{
		Query	   *parsed = lfirst_node(Query, cell);

		if (parsed->commandType != CMD_SELECT || parsed->hasModifyingCTE)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("source must be a single SELECT query"),
					 errhint("A governed source is read-only: no data-modifying WITH query.")));
		collect_from_query(parsed, &objects);
	}
	objects.relids = with_descendants(objects.relids);
	return objects;
}

static SourceObjects
source_objects(FunctionCallInfo fcinfo)
{
	return objects_of_query(required_text(fcinfo, 0, "source"));
}

static ArrayType *
oid_array(List *oids, Oid type)
{
	Datum	   *elements = palloc(sizeof(Datum) * Max(list_length(oids), 1));
	ListCell   *cell;
	int			n = 0;

	foreach(cell, oids)
		elements[n++] = ObjectIdGetDatum(lfirst_oid(cell));
	return construct_array(elements, n, type, sizeof(Oid), true, TYPALIGN_INT);
}

Datum
dp_source_relations(PG_FUNCTION_ARGS)
{
	PG_RETURN_ARRAYTYPE_P(oid_array(source_objects(fcinfo).relids, REGCLASSOID));
}

Datum
dp_source_functions(PG_FUNCTION_ARGS)
{
	PG_RETURN_ARRAYTYPE_P(oid_array(source_objects(fcinfo).funcids, REGPROCEDUREOID));
}

/*
 * dp.check_source_objects(query): a governed source is read-only and can
 * be redirected by nobody but its owner and superusers. Refuses (42501) a
 * volatile function (it could write, or draw its own randomness), any
 * function, table, view or domain owned by another role than the caller
 * (who is registering the source, or the owner at a draw) or a superuser,
 * and a function that sets a search_path with a schema others can write.
 */
PG_FUNCTION_INFO_V1(dp_check_source_objects);

/* The search_path a function sets for itself (its SET clause), or NULL. */
static char *
own_search_path(HeapTuple tuple)
{
	bool		isnull;
	Datum		config = SysCacheGetAttr(PROCOID, tuple, Anum_pg_proc_proconfig, &isnull);
	ArrayType  *array;
	Datum	   *items;
	int			n;
	int			i;

	if (isnull)
		return NULL;
	array = DatumGetArrayTypeP(config);
	deconstruct_array(array, TEXTOID, -1, false, TYPALIGN_INT, &items, NULL, &n);
	for (i = 0; i < n; i++)
	{
		char	   *item = TextDatumGetCString(items[i]);

		if (strncmp(item, "search_path=", 12) == 0)
			return item + 12;
	}
	return NULL;
}

/*
 * A function called (volatile: refused) or run as an aggregate's support
 * (its volatility is the aggregate's): owned by a trusted role, and its own
 * search_path trusted.
 */
static void
check_function(Oid funcid, bool called)
{
	HeapTuple	tuple = SearchSysCache1(PROCOID, ObjectIdGetDatum(funcid));
	Form_pg_proc proc;
	char	   *search_path;

	if (!HeapTupleIsValid(tuple))
		elog(ERROR, "cache lookup failed for function %u", funcid);
	proc = (Form_pg_proc) GETSTRUCT(tuple);
	if (called && proc->provolatile == PROVOLATILE_VOLATILE)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("source calls volatile function %s", format_procedure(funcid)),
				 errdetail("A governed source must be read-only and deterministic for its data: a volatile "
						   "function may write or change the data between draws."),
				 errhint("Use a STABLE or IMMUTABLE function, or leave the call out of the source.")));
	if (!trusted_owner(proc->proowner))
		refuse_untrusted_owner("function", format_procedure(funcid), proc->proowner);
	/* Its body resolves names in the schemas it sets: those must be trusted too. */
	search_path = own_search_path(tuple);
	if (search_path != NULL)
		(void) trusted_search_path(search_path, false);
	ReleaseSysCache(tuple);
}

/*
 * Every relation a source reads, tables included: their owner could turn
 * them into views (a CREATE RULE "_RETURN" on an emptied table) or attach
 * row-level security policies, which run code with the reader's rights.
 */
static void
check_read_relation(Oid relid)
{
	HeapTuple	tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	Oid			owner;
	char		kind;

	if (!HeapTupleIsValid(tuple))
		elog(ERROR, "cache lookup failed for relation %u", relid);
	owner = ((Form_pg_class) GETSTRUCT(tuple))->relowner;
	kind = ((Form_pg_class) GETSTRUCT(tuple))->relkind;
	ReleaseSysCache(tuple);
	if (!trusted_owner(owner))
		refuse_untrusted_owner(kind == RELKIND_VIEW || kind == RELKIND_MATVIEW ? "view" : "table",
							   quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)),
														  get_rel_name(relid)), owner);
}

/*
 * An operator: its owner could drop and recreate it, or it could be a
 * look-alike planted in a schema the search_path reaches first (a database
 * owner's default search_path), bound to another function; its function is
 * checked with the other calls.
 */
static void
check_operator(Oid opno)
{
	HeapTuple	tuple = SearchSysCache1(OPEROID, ObjectIdGetDatum(opno));
	Oid			owner;

	if (!HeapTupleIsValid(tuple))
		elog(ERROR, "cache lookup failed for operator %u", opno);
	owner = ((Form_pg_operator) GETSTRUCT(tuple))->oprowner;
	ReleaseSysCache(tuple);
	if (!trusted_owner(owner))
		refuse_untrusted_owner("operator", format_operator(opno), owner);
}

/* A collation decides which values are equal and how they sort. */
static void
check_collation(Oid collation)
{
	HeapTuple	tuple = SearchSysCache1(COLLOID, ObjectIdGetDatum(collation));
	Form_pg_collation form;
	Oid			owner;
	char	   *name;

	if (!HeapTupleIsValid(tuple))
		elog(ERROR, "cache lookup failed for collation %u", collation);
	form = (Form_pg_collation) GETSTRUCT(tuple);
	owner = form->collowner;
	name = quote_qualified_identifier(get_namespace_name(form->collnamespace), NameStr(form->collname));
	ReleaseSysCache(tuple);
	if (!trusted_owner(owner))
		refuse_untrusted_owner("collation", name, owner);
}

/* An aggregate's transition, final, combine and other support functions run too. */
static void
check_aggregate_support(Oid aggfnoid)
{
	HeapTuple	tuple = SearchSysCache1(AGGFNOID, ObjectIdGetDatum(aggfnoid));
	Form_pg_aggregate form;
	Oid			support[8];
	int			i;

	if (!HeapTupleIsValid(tuple))
		elog(ERROR, "cache lookup failed for aggregate %u", aggfnoid);
	form = (Form_pg_aggregate) GETSTRUCT(tuple);
	support[0] = form->aggtransfn;
	support[1] = form->aggfinalfn;
	support[2] = form->aggcombinefn;
	support[3] = form->aggserialfn;
	support[4] = form->aggdeserialfn;
	support[5] = form->aggmtransfn;
	support[6] = form->aggminvtransfn;
	support[7] = form->aggmfinalfn;
	ReleaseSysCache(tuple);
	for (i = 0; i < 8; i++)
		if (OidIsValid(support[i]))
			check_function(support[i], false);
}

void
check_governed_query(const char *query)
{
	SourceObjects objects = objects_of_query(query);
	ListCell   *cell;

	foreach(cell, objects.called)
		check_function(lfirst_oid(cell), true);
	foreach(cell, objects.aggregates)
		check_aggregate_support(lfirst_oid(cell));
	foreach(cell, objects.operators)
		check_operator(lfirst_oid(cell));
	foreach(cell, objects.relids)
		check_read_relation(lfirst_oid(cell));
	foreach(cell, objects.domains)
		check_type_owners(lfirst_oid(cell));
	foreach(cell, objects.types)
		check_type_owners(lfirst_oid(cell));
	foreach(cell, objects.collations)
		check_collation(lfirst_oid(cell));
}

Datum
dp_check_source_objects(PG_FUNCTION_ARGS)
{
	check_governed_query(required_text(fcinfo, 0, "source"));
	PG_RETURN_VOID();
}
