/*
 * dp.privatize in FROM, returned without the executor's tuplestore.
 *
 * PostgreSQL runs every function in FROM through a FunctionScan, which
 * stores the function's whole result in a tuplestore before the query reads
 * it; beyond work_mem that tuplestore is written to a temporary file and
 * read back. A release of millions of cells paid that on top of holding its
 * rows already (test/bench/README.md, "Wide releases"). For a FROM item that is
 * exactly one call of dp.privatize with a column definition list and
 * arguments that do not change while the query runs (no column of another
 * FROM item, no executor parameter), the planner hook below offers a
 * CustomScan instead: it makes the release the first time it is read, with
 * the same code and checks as the function (privatize.c), and returns its
 * rows one by one from the rows it holds.
 *
 * What the function call did that the scan must do too: check EXECUTE on
 * dp.privatize for the current user (fmgr does it for a FunctionScan) and
 * run the function-execute hook. dp.privatize is neither SECURITY DEFINER
 * nor has SET clauses (the hook declines a function that has either). A
 * rescan returns the same rows (a FunctionScan rescans its tuplestore: the
 * release is made once per query). dp.privatize_scan = off keeps the
 * FunctionScan.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/sysattr.h"
#include "catalog/namespace.h"
#include "catalog/objectaccess.h"
#include "catalog/pg_language.h"
#include "catalog/pg_proc.h"
#include "executor/executor.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/restrictinfo.h"
#include "parser/parsetree.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "gucs.h"
#include "privatize.h"
#include "privatize_scan.h"

typedef struct PrivatizeScanState
{
	CustomScanState css;
	Oid			funcid;
	List	   *args;			/* ExprState per argument of the call */
	TupleDesc	result_desc;
	bool	   *needed;			/* per column: read by the projection or a qual; NULL: every column */
	PrivatizedRows *rows;		/* NULL until first read */
	size_t		next;
} PrivatizeScanState;

static set_rel_pathlist_hook_type previous_pathlist_hook = NULL;

static Plan *plan_privatize_scan(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path, List *tlist,
								 List *clauses, List *custom_plans);
static Node *create_privatize_scan_state(CustomScan *cscan);
static void begin_privatize_scan(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *exec_privatize_scan(CustomScanState *node);
static void end_privatize_scan(CustomScanState *node);
static void rescan_privatize_scan(CustomScanState *node);

static const CustomPathMethods privatize_path_methods = {
	.CustomName = "dp.privatize",
	.PlanCustomPath = plan_privatize_scan,
};

static const CustomScanMethods privatize_scan_methods = {
	.CustomName = "dp.privatize",
	.CreateCustomScanState = create_privatize_scan_state,
};

static const CustomExecMethods privatize_exec_methods = {
	.CustomName = "dp.privatize",
	.BeginCustomScan = begin_privatize_scan,
	.ExecCustomScan = exec_privatize_scan,
	.EndCustomScan = end_privatize_scan,
	.ReScanCustomScan = rescan_privatize_scan,
};

/* This library's dp.privatize, called as itself (no SECURITY DEFINER, no SET). */
static bool
is_privatize(Oid funcid)
{
	HeapTuple	tuple = SearchSysCache1(PROCOID, ObjectIdGetDatum(funcid));
	Form_pg_proc proc;
	bool		isnull;
	Datum		prosrc;
	bool		ours;

	if (!HeapTupleIsValid(tuple))
		return false;
	proc = (Form_pg_proc) GETSTRUCT(tuple);
	prosrc = SysCacheGetAttr(PROCOID, tuple, Anum_pg_proc_prosrc, &isnull);
	ours = proc->prolang == ClanguageId && !proc->prosecdef && !isnull &&
		strcmp(TextDatumGetCString(prosrc), "dp_privatize") == 0 &&
		heap_attisnull(tuple, Anum_pg_proc_proconfig, NULL) &&
		proc->pronamespace == get_namespace_oid("dp", true);
	ReleaseSysCache(tuple);
	return ours;
}

static bool
has_executor_params(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Param) && ((Param *) node)->paramkind == PARAM_EXEC)
		return true;
	return expression_tree_walker(node, has_executor_params, context);
}

/*
 * Whether the query reads the FROM item as a whole row (t, row_to_json(t),
 * WHERE t IS NOT NULL): the scan's tuple is its columns, with no row value
 * to return, so such a query keeps the function scan.
 */
static bool
reads_whole_row(RelOptInfo *rel)
{
	Bitmapset  *attrs = NULL;
	ListCell   *cell;

	pull_varattnos((Node *) rel->reltarget->exprs, rel->relid, &attrs);
	foreach(cell, rel->baserestrictinfo)
		pull_varattnos((Node *) lfirst_node(RestrictInfo, cell)->clause, rel->relid, &attrs);
	return bms_is_member(0 - FirstLowInvalidHeapAttributeNumber, attrs);
}

/* The one call of dp.privatize this FROM item is, or NULL. */
static FuncExpr *
privatize_call(RelOptInfo *rel, RangeTblEntry *rte)
{
	RangeTblFunction *rtfunc;
	FuncExpr   *call;

	if (!dp_privatize_scan || rte->rtekind != RTE_FUNCTION || rel->reloptkind != RELOPT_BASEREL ||
		list_length(rte->functions) != 1 || rte->funcordinality || !bms_is_empty(rel->lateral_relids) ||
		reads_whole_row(rel))
		return NULL;
	rtfunc = linitial_node(RangeTblFunction, rte->functions);
	if (!IsA(rtfunc->funcexpr, FuncExpr) || rtfunc->funccolnames == NIL)
		return NULL;
	call = (FuncExpr *) rtfunc->funcexpr;
	if (!is_privatize(call->funcid) || contain_var_clause((Node *) call->args) ||
		has_executor_params((Node *) call->args, NULL))
		return NULL;
	return call;
}

static void
privatize_pathlist(PlannerInfo *root, RelOptInfo *rel, Index rti, RangeTblEntry *rte)
{
	CustomPath *path;
	Path	   *function_scan;

	if (previous_pathlist_hook)
		previous_pathlist_hook(root, rel, rti, rte);
	if (privatize_call(rel, rte) == NULL || rel->pathlist == NIL)
		return;
	function_scan = linitial(rel->pathlist);
	path = makeNode(CustomPath);
	path->path.pathtype = T_CustomScan;
	path->path.parent = rel;
	path->path.pathtarget = rel->reltarget;
	path->path.rows = function_scan->rows;
	path->path.startup_cost = function_scan->startup_cost;
	path->path.total_cost = function_scan->total_cost;
	path->methods = &privatize_path_methods;
	/* Instead of the FunctionScan, not beside it: the two make the same release. */
	rel->pathlist = NIL;
	add_path(rel, &path->path);
}

/*
 * The plan: no relation is scanned (scanrelid 0); the scan tuple is the
 * column definition list, described by custom_scan_tlist as Vars of this
 * FROM item, so the planner maps the query's references onto it.
 */
static Plan *
plan_privatize_scan(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path, List *tlist, List *clauses,
					List *custom_plans)
{
	RangeTblEntry *rte = planner_rt_fetch(rel->relid, root);
	RangeTblFunction *rtfunc = linitial_node(RangeTblFunction, rte->functions);
	CustomScan *scan = makeNode(CustomScan);
	List	   *scan_tlist = NIL;
	ListCell   *name,
			   *type,
			   *typmod,
			   *collation;
	AttrNumber	attno = 0;

	forfour(name, rtfunc->funccolnames, type, rtfunc->funccoltypes, typmod, rtfunc->funccoltypmods,
			collation, rtfunc->funccolcollations)
	{
		Var		   *var = makeVar(rel->relid, ++attno, lfirst_oid(type), lfirst_int(typmod),
								  lfirst_oid(collation), 0);

		scan_tlist = lappend(scan_tlist, makeTargetEntry((Expr *) var, attno, pstrdup(strVal(lfirst(name))), false));
	}
	scan->scan.plan.targetlist = tlist;
	scan->scan.plan.qual = extract_actual_clauses(clauses, false);
	scan->scan.scanrelid = 0;
	scan->custom_scan_tlist = scan_tlist;
	scan->custom_exprs = list_make1(rtfunc->funcexpr);
	scan->methods = &privatize_scan_methods;
	return &scan->scan.plan;
}

static Node *
create_privatize_scan_state(CustomScan *cscan)
{
	PrivatizeScanState *state = palloc0(sizeof(PrivatizeScanState));

	NodeSetTag(state, T_CustomScanState);
	state->css.methods = &privatize_exec_methods;
	return (Node *) state;
}

/*
 * Which columns of the scan tuple anything reads. Without a projection the
 * tuple itself goes up the plan: every column. With one, only the columns
 * its target list and the quals name (as a heap scan deforms only the
 * attributes it needs): a query that reads some columns, or counts rows,
 * does not convert the keys it never looks at.
 */
static bool *
needed_columns(CustomScanState *node)
{
	CustomScan *scan = (CustomScan *) node->ss.ps.plan;
	int			natts = node->ss.ss_ScanTupleSlot->tts_tupleDescriptor->natts;
	Bitmapset  *attrs = NULL;
	bool	   *needed;
	int			a;

	if (node->ss.ps.ps_ProjInfo == NULL)
		return NULL;
	pull_varattnos((Node *) scan->scan.plan.targetlist, INDEX_VAR, &attrs);
	pull_varattnos((Node *) scan->scan.plan.qual, INDEX_VAR, &attrs);
	if (bms_is_member(0 - FirstLowInvalidHeapAttributeNumber, attrs))
		return NULL;			/* a whole row (reads_whole_row declines the plan first) */
	needed = palloc(sizeof(bool) * natts);
	for (a = 0; a < natts; a++)
		needed[a] = bms_is_member(a + 1 - FirstLowInvalidHeapAttributeNumber, attrs);
	return needed;
}

static void
begin_privatize_scan(CustomScanState *node, EState *estate, int eflags)
{
	PrivatizeScanState *state = (PrivatizeScanState *) node;
	CustomScan *scan = (CustomScan *) node->ss.ps.plan;
	FuncExpr   *call = linitial_node(FuncExpr, scan->custom_exprs);

	/* What fmgr checks before a FunctionScan calls the function. */
	if (pg_proc_aclcheck(call->funcid, GetUserId(), ACL_EXECUTE) != ACLCHECK_OK)
		aclcheck_error(ACLCHECK_NO_PRIV, OBJECT_FUNCTION, get_func_name(call->funcid));
	InvokeFunctionExecuteHook(call->funcid);
	state->funcid = call->funcid;
	state->args = ExecInitExprList(call->args, &node->ss.ps);
	state->result_desc = CreateTupleDescCopy(node->ss.ss_ScanTupleSlot->tts_tupleDescriptor);
	state->needed = needed_columns(node);
}

/* The release, made the first time the scan is read. */
static void
make_release(PrivatizeScanState *state)
{
	EState	   *estate = state->css.ss.ps.state;
	ExprContext *econtext = state->css.ss.ps.ps_ExprContext;
	int			nargs = list_length(state->args);
	LOCAL_FCINFO(fcinfo, FUNC_MAX_ARGS);
	ReturnSetInfo rsinfo;
	FmgrInfo	flinfo;
	ListCell   *arg;
	int			i = 0;

	fmgr_info(state->funcid, &flinfo);
	memset(&rsinfo, 0, sizeof rsinfo);
	rsinfo.type = T_ReturnSetInfo;
	rsinfo.econtext = econtext;
	rsinfo.expectedDesc = state->result_desc;
	rsinfo.allowedModes = SFRM_Materialize;
	InitFunctionCallInfoData(*fcinfo, &flinfo, nargs, InvalidOid, NULL, (Node *) &rsinfo);
	foreach(arg, state->args)
	{
		fcinfo->args[i].value = ExecEvalExpr((ExprState *) lfirst(arg), econtext, &fcinfo->args[i].isnull);
		i++;
	}
	state->rows = privatize_rows(fcinfo, estate->es_query_cxt);
	state->next = 0;
}

static TupleTableSlot *
next_row(ScanState *node)
{
	PrivatizeScanState *state = (PrivatizeScanState *) node;
	TupleTableSlot *slot = node->ss_ScanTupleSlot;
	MemoryContext caller;

	if (state->rows == NULL)
		make_release(state);
	ExecClearTuple(slot);
	if (state->next >= privatized_count(state->rows))
		return slot;
	if ((state->next & 8191) == 0)
		CHECK_FOR_INTERRUPTS();
	/* A numeric count is made per row: in the per-tuple memory. */
	caller = MemoryContextSwitchTo(node->ps.ps_ExprContext->ecxt_per_tuple_memory);
	privatized_row(state->rows, state->next++, state->needed, slot->tts_values, slot->tts_isnull);
	MemoryContextSwitchTo(caller);
	return ExecStoreVirtualTuple(slot);
}

static bool
recheck_row(ScanState *node, TupleTableSlot *slot)
{
	return true;
}

static TupleTableSlot *
exec_privatize_scan(CustomScanState *node)
{
	return ExecScan(&node->ss, next_row, recheck_row);
}

static void
end_privatize_scan(CustomScanState *node)
{
	/* The rows and the core's table go with the query's memory. */
}

static void
rescan_privatize_scan(CustomScanState *node)
{
	PrivatizeScanState *state = (PrivatizeScanState *) node;

	state->next = 0;
	ExecScanReScan(&node->ss);
}

/*
 * dp.privatize's support function. The planner calls a function's support
 * function while it plans a call of it (to simplify it, to estimate its
 * rows), before it chooses paths; calling it loads the library, whose
 * _PG_init installs the hook above. So the custom scan is chosen from a
 * session's first query on, not only once an earlier call has loaded the
 * library. It answers no request (NULL: the planner's defaults).
 */
PG_FUNCTION_INFO_V1(dp_privatize_support);

Datum
dp_privatize_support(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(NULL);
}

void
register_privatize_scan(void)
{
	RegisterCustomScanMethods(&privatize_scan_methods);
	previous_pathlist_hook = set_rel_pathlist_hook;
	set_rel_pathlist_hook = privatize_pathlist;
}
