/* The caller's side of a governed draw: see draw_launcher.h. */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/transam.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "nodes/value.h"
#include "parser/parse_func.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "storage/dsm.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/lock.h"
#include "storage/proc.h"
#include "tcop/tcopprot.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

#include "draw_launcher.h"
#include "gucs.h"
#include "run_as.h"

/* How long a draw waits for a draw slot, then a background-worker slot. */
#define WORKER_SLOT_WAIT_MS 30000
/* How often the caller looks at its worker while waiting. */
#define WORKER_POLL_MS 100

/* The role that owns the extension's catalog: the worker connects as it. */
static Oid
catalog_owner(void)
{
	Oid			budgets = get_relname_relid("budgets", get_namespace_oid("dp", false));
	HeapTuple	tuple;
	Oid			owner;

	if (!OidIsValid(budgets))
		elog(ERROR, "dp.budgets is missing");
	tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(budgets));
	if (!HeapTupleIsValid(tuple))
		elog(ERROR, "cache lookup failed for relation %u", budgets);
	owner = ((Form_pg_class) GETSTRUCT(tuple))->relowner;
	ReleaseSysCache(tuple);
	return owner;
}

static BackgroundWorkerHandle *
start_worker(dsm_segment *segment, Oid release)
{
	BackgroundWorker worker;
	BackgroundWorkerHandle *handle;
	TimestampTz start = GetCurrentTimestamp();

	memset(&worker, 0, sizeof worker);
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
	worker.bgw_restart_time = BGW_NEVER_RESTART;
	snprintf(worker.bgw_library_name, BGW_MAXLEN, "invariant_dp");
	snprintf(worker.bgw_function_name, BGW_MAXLEN, "dp_draw_worker_main");
	snprintf(worker.bgw_name, BGW_MAXLEN, "invariant_dp draw of release %u", release);
	snprintf(worker.bgw_type, BGW_MAXLEN, "invariant_dp draw");
	worker.bgw_main_arg = UInt32GetDatum(dsm_segment_handle(segment));
	worker.bgw_notify_pid = MyProcPid;

	/* Under load every slot may be busy: wait for one, interruptibly. */
	while (!RegisterDynamicBackgroundWorker(&worker, &handle))
	{
		if (TimestampDifferenceExceeds(start, GetCurrentTimestamp(), WORKER_SLOT_WAIT_MS))
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_RESOURCES),
					 errmsg("no background worker slot became free for a governed draw"),
					 errdetail("Each draw runs in a background worker of its own; all %d were busy for %d seconds.",
							   max_worker_processes, WORKER_SLOT_WAIT_MS / 1000),
					 errhint("Raise max_worker_processes, or draw less often at once.")));
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 20L, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
	return handle;
}

/*
 * One of dp.max_draw_workers slots, held by the caller while its draw runs:
 * a lock of the lock manager's advisory kind that no SQL function can name
 * (database 0, a key kind of its own), so it is cluster-wide, freed by the
 * caller's transaction end whatever happens, and shown in pg_locks.
 */
#define DRAW_SLOT_KEY 0x64707764	/* "dpwd" */
#define DRAW_SLOT_KIND 3			/* pg_advisory_lock uses 1 and 2 */

static void
draw_slot_tag(LOCKTAG *tag, int slot)
{
	SET_LOCKTAG_ADVISORY(*tag, InvalidOid, DRAW_SLOT_KEY, (uint32) slot, DRAW_SLOT_KIND);
}

/*
 * A free slot, waited for interruptibly: a refresher who keeps drawing can
 * hold at most dp.max_draw_workers background workers, never every slot
 * parallel query and other extensions need.
 */
static int
take_draw_slot(void)
{
	TimestampTz start = GetCurrentTimestamp();

	for (;;)
	{
		int			slot;

		for (slot = 0; slot < dp_max_draw_workers; slot++)
		{
			LOCKTAG		tag;

			draw_slot_tag(&tag, slot);
			if (LockAcquire(&tag, ExclusiveLock, false, true) != LOCKACQUIRE_NOT_AVAIL)
				return slot;
		}
		if (TimestampDifferenceExceeds(start, GetCurrentTimestamp(), WORKER_SLOT_WAIT_MS))
			ereport(ERROR,
					(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
					 errmsg("too many governed draws are running"),
					 errdetail("dp.max_draw_workers (%d) draws ran for all of %d seconds.", dp_max_draw_workers,
							   WORKER_SLOT_WAIT_MS / 1000),
					 errhint("Draw later, or ask an administrator to raise dp.max_draw_workers (and "
							 "max_worker_processes with it).")));
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 20L, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
}

static void
release_draw_slot(int slot)
{
	LOCKTAG		tag;

	draw_slot_tag(&tag, slot);
	LockRelease(&tag, ExclusiveLock, false);
}

/* Does the worker wait for a lock this backend holds? Then it never will. */
static bool
worker_blocked_by_caller(pid_t worker_pid)
{
	ArrayType  *blockers = DatumGetArrayTypeP(DirectFunctionCall1(pg_blocking_pids, Int32GetDatum(worker_pid)));
	int32	   *pids = (int32 *) ARR_DATA_PTR(blockers);
	int			n = ArrayGetNItems(ARR_NDIM(blockers), ARR_DIMS(blockers));
	int			i;

	for (i = 0; i < n; i++)
		if (pids[i] == MyProcPid)
			return true;
	return false;
}

static void
wait_for_worker(BackgroundWorkerHandle *handle)
{
	for (;;)
	{
		pid_t		pid;
		BgwHandleStatus status = GetBackgroundWorkerPid(handle, &pid);

		if (status == BGWH_STOPPED)
			return;
		if (status == BGWH_STARTED && worker_blocked_by_caller(pid))
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_IN_USE),
					 errmsg("the draw waits for a lock held by this transaction"),
					 errdetail("A governed draw commits in a transaction of its own; this transaction has changed "
							   "a row or table the draw must change too."),
					 errhint("Commit or roll back first, then draw.")));
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, WORKER_POLL_MS,
						 PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
}

/* Stops the worker a failed or interrupted wait leaves behind. */
static void
stop_worker(int code, Datum arg)
{
	BackgroundWorkerHandle *handle = *(BackgroundWorkerHandle **) DatumGetPointer(arg);

	if (handle != NULL)
		TerminateBackgroundWorker(handle);
}

/*
 * Refused here, named as the caller names it: what cannot be a governed
 * release (only a permanent table can), and a release table created by the
 * caller's own transaction, which the worker's snapshot cannot see yet.
 */
static void
check_release_relation(Oid release)
{
	char	   *name = DatumGetCString(DirectFunctionCall1(regclassout, ObjectIdGetDatum(release)));
	HeapTuple	tuple;
	bool		uncommitted;

	if (get_rel_relkind(release) != RELKIND_RELATION || get_rel_persistence(release) == RELPERSISTENCE_TEMP)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("%s is not a governed release", name)));
	tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(release));
	if (!HeapTupleIsValid(tuple))
		elog(ERROR, "cache lookup failed for relation %u", release);
	uncommitted = TransactionIdIsCurrentTransactionId(HeapTupleHeaderGetXmin(tuple->t_data));
	ReleaseSysCache(tuple);
	if (uncommitted)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("release %s was registered in this transaction", name),
				 errdetail("A draw commits in a transaction of its own, which sees only committed registrations."),
				 errhint("Commit after dp.register_release, then draw.")));
}

/* What dp.check_draw is asked: whether this caller may draw this release now. */
typedef struct DrawQuestion
{
	Oid			release;
	Oid			caller;
	bool		may_restore;
} DrawQuestion;

/* The installed SQL objects' version (pg_extension.extversion), or NULL. */
static char *
installed_sql_version(void)
{
	bool		isnull;
	Datum		version;

	if (SPI_execute("SELECT e.extversion FROM pg_catalog.pg_extension e "
					"WHERE e.extname OPERATOR(pg_catalog.=) 'invariant_dp'", true, 1) != SPI_OK_SELECT ||
		SPI_processed != 1)
		return NULL;
	version = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	return isnull ? NULL : TextDatumGetCString(version);
}

/*
 * As the catalog's owner, under search_path pg_catalog, pg_temp
 * (run_as_role): the draw's entitlement and budget. The library draws only
 * with the SQL objects of its own version (the draw functions' bodies are
 * part of what keeps a draw safe), and calls dp.check_draw by its oid,
 * found in the catalog by schema, name and argument types: no SQL text
 * naming a function is parsed.
 */
static void
ask_check_draw(void *arg)
{
	const DrawQuestion *question = (const DrawQuestion *) arg;
	Oid			types[3] = {REGCLASSOID, REGROLEOID, BOOLOID};
	char	   *version = installed_sql_version();
	Oid			function;
	Datum		args[3];

	if (version == NULL || strcmp(version, INVARIANT_DP_VERSION) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the extension's SQL objects (version %s) are not those of its library (version %s)",
						version ? version : "none", INVARIANT_DP_VERSION),
				 errdetail("Governed draws need the functions of the installed library's version."),
				 errhint("ALTER EXTENSION invariant_dp UPDATE, then draw.")));
	function = LookupFuncName(list_make2(makeString("dp"), makeString("check_draw")), 3, types, false);
	args[0] = ObjectIdGetDatum(question->release);
	args[1] = ObjectIdGetDatum(question->caller);
	args[2] = BoolGetDatum(question->may_restore);
	(void) OidFunctionCall3(function, args[0], args[1], args[2]);
}

/*
 * Whether the caller may draw release now (dp.check_draw, which reads the
 * catalog and so runs as its owner, in a security-restricted operation
 * under a pinned search_path, so no name the caller's search_path could
 * shadow is resolved there): a role that may not draw, or a draw the budget
 * cannot pay, is refused before a background worker is started for it.
 */
static void
check_draw_allowed(Oid release, Oid catalog_owner, bool may_restore)
{
	DrawQuestion question = {release, GetUserId(), may_restore};

	SPI_connect();
	run_as_role(catalog_owner, "pg_catalog, pg_temp", ask_check_draw, &question);
	SPI_finish();
}

/*
 * The worker's error as the caller may see it. Errors raised once the draw
 * was charged may come from the source and name its data (a value in a cast
 * error, a count that overflows): the release's owner and superusers see
 * them whole; other roles see only that the draw failed, with one SQLSTATE
 * for every such failure, so not even its kind depends on the data (the
 * server log and the audit row have the rest).
 */
static void
raise_worker_error(const DrawTask *outcome)
{
	int			sqlerrcode = outcome->sqlerrcode ? outcome->sqlerrcode : ERRCODE_INTERNAL_ERROR;

	if (outcome->charged && !superuser() && !has_privs_of_role(GetUserId(), outcome->release_owner))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("the draw of the release failed after it was charged"),
				 errdetail("The charge stays; the previous draw stays readable."),
				 errhint("The release's owner sees the whole error, and the server log has it.")));
	ereport(ERROR,
			(errcode(sqlerrcode),
			 errmsg_internal("%s", outcome->message),
			 outcome->detail[0] ? errdetail_internal("%s", outcome->detail) : 0,
			 outcome->hint[0] ? errhint("%s", outcome->hint) : 0));
}

/* Refused before anything starts: a standby, a read-only transaction. */
static void
check_writable(void)
{
	if (RecoveryInProgress())
		ereport(ERROR,
				(errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
				 errmsg("cannot draw a governed release during recovery"),
				 errhint("Draw on the primary; standbys replicate the stored draw.")));
	PreventCommandIfReadOnly("a governed draw");
}

/* The task, in a new shared memory segment the worker attaches. */
static dsm_segment *
new_task(Oid release, Oid connect_as, bool may_restore)
{
	dsm_segment *segment = dsm_create(sizeof(DrawTask), 0);
	DrawTask   *task = dsm_segment_address(segment);

	memset(task, 0, sizeof *task);
	task->database = MyDatabaseId;
	task->connect_as = connect_as;
	task->release = release;
	task->caller = GetUserId();
	task->session_user = GetSessionUserId();
	task->may_restore = may_restore;
	return segment;
}

DrawTask
draw_in_worker(Oid release, bool may_restore)
{
	dsm_segment *segment;
	DrawTask	outcome;
	BackgroundWorkerHandle *handle = NULL;
	Oid			connect_as = catalog_owner();
	int			slot;

	check_release_relation(release);
	check_writable();
	check_draw_allowed(release, connect_as, may_restore);
	segment = new_task(release, connect_as, may_restore);
	/*
	 * Whatever ends the wait (cancel, timeout, pg_terminate_backend, an
	 * error), the worker is stopped: its transaction aborts; a charge it
	 * has committed stays.
	 */
	slot = take_draw_slot();
	PG_ENSURE_ERROR_CLEANUP(stop_worker, PointerGetDatum(&handle));
	{
		handle = start_worker(segment, release);
		wait_for_worker(handle);
	}
	PG_END_ENSURE_ERROR_CLEANUP(stop_worker, PointerGetDatum(&handle));
	release_draw_slot(slot);
	pg_read_barrier();
	outcome = *(DrawTask *) dsm_segment_address(segment);
	dsm_detach(segment);
	if (!outcome.finished)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("the governed draw's worker ended without a result"),
				 errhint("The server log says why. Nothing was drawn unless dp.draws shows it.")));
	if (outcome.failed)
		raise_worker_error(&outcome);
	return outcome;
}
