/*
 * dp.refresh_release(release) and dp.draw(NULL::release): every governed
 * draw runs in a background worker (refresh_worker.h says why). The caller
 * checks that it may draw, launches the worker, waits for it interruptibly
 * and re-raises its error. The worker charges the draw (dp.charge_draw) in a
 * transaction it commits before any noise exists, then makes and stores it
 * (dp.store_draw) in a second one, holding a lock on the release table
 * across both: a caller that reads a draw reads one that was paid for, and a
 * draw that fails or is cancelled once charged stays charged.
 */
#include "postgres.h"

#include <unistd.h>

#include "access/htup_details.h"
#include "access/xact.h"
#include "access/transam.h"
#include "access/xlog.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "parser/parse_func.h"
#include "parser/parse_type.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "storage/dsm.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/lmgr.h"
#include "storage/lock.h"
#include "storage/proc.h"
#include "tcop/tcopprot.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

#include "gucs.h"
#include "refresh_worker.h"
#include "run_as.h"
#include "worker_settings.h"

PG_FUNCTION_INFO_V1(dp_refresh_release);
PG_FUNCTION_INFO_V1(dp_draw);

PGDLLEXPORT void dp_refresh_worker_main(Datum main_arg);

bool		dp_in_refresh_worker = false;

/* How long a draw waits for a free background-worker slot. */
#define WORKER_SLOT_WAIT_MS 30000
/* How often the caller looks at its worker while waiting. */
#define WORKER_POLL_MS 100

/* The request and its outcome, in a shared memory segment both attach. */
typedef struct DrawTask
{
	/* set by the caller */
	Oid			database;
	Oid			connect_as;		/* the owner of the extension's catalog */
	Oid			release;
	Oid			caller;			/* the role in effect when the caller asked */
	Oid			session_user;
	bool		may_restore;	/* dp.draw: a restored release returns its stored draw */

	/* set by the worker, after its transactions have committed or aborted */
	bool		finished;
	bool		charged;		/* the charge committed: noise may have been drawn since */
	bool		failed;
	int64		draw_id;		/* the audit row */
	Oid			release_owner;
	int			sqlerrcode;
	char		message[1024];
	char		detail[1024];
	char		hint[512];
} DrawTask;

void
require_refresh_worker(const char *function)
{
	if (!dp_in_refresh_worker)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("%s runs only inside a governed draw", function),
				 errhint("Use dp.refresh_release(release) or dp.draw(NULL::release); if they call this "
						 "function directly, the extension's SQL is older than its library: "
						 "ALTER EXTENSION invariant_dp UPDATE.")));
}

/* ---------------------------------------------------------------- worker */

static void
copy_text(char *target, size_t size, const char *text)
{
	strlcpy(target, text ? text : "", size);
}

/* Runs query with args in a transaction of its own; returns its first row. */
static HeapTuple
run_transaction(const char *query, int nargs, Oid *types, Datum *args, TupleDesc *desc, MemoryContext keep)
{
	HeapTuple	row = NULL;

	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	SPI_connect();
	PushActiveSnapshot(GetTransactionSnapshot());
	if (SPI_execute_with_args(query, nargs, types, args, NULL, false, 1) < 0)
		elog(ERROR, "could not run %s", query);
	if (SPI_processed == 1 && desc != NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(keep);

		row = SPI_copytuple(SPI_tuptable->vals[0]);
		*desc = CreateTupleDescCopy(SPI_tuptable->tupdesc);
		MemoryContextSwitchTo(old);
	}
	SPI_finish();
	PopActiveSnapshot();
	CommitTransactionCommand();
	return row;
}

/* Records the error the worker caught, logs it, and aborts its transaction. */
static void
record_failure(DrawTask *task, MemoryContext outer)
{
	ErrorData  *error;

	MemoryContextSwitchTo(outer);
	error = CopyErrorData();
	/* The whole error, for the administrator: the caller may see less. */
	EmitErrorReport();
	FlushErrorState();
	AbortCurrentTransaction();
	task->failed = true;
	task->sqlerrcode = error->sqlerrcode;
	copy_text(task->message, sizeof task->message, error->message);
	copy_text(task->detail, sizeof task->detail, error->detail);
	copy_text(task->hint, sizeof task->hint, error->hint);
}

/*
 * The draw: its charge in one transaction, then the draw itself in another.
 * A session lock on the release table keeps draws of one release from
 * overlapping across the two (readers, who take ACCESS SHARE, go on).
 */
static void
run_draw(DrawTask *task)
{
	MemoryContext outer = CurrentMemoryContext;
	LockRelId	lock = {task->release, task->database};
	Oid			charge_types[4] = {REGCLASSOID, REGROLEOID, REGROLEOID, BOOLOID};
	Datum		charge_args[4];
	Oid			store_types[2] = {REGCLASSOID, INT8OID};
	Datum		store_args[2];
	Oid			note_types[2] = {INT8OID, TEXTOID};
	Datum		note_args[2];
	volatile bool locked = false;

	charge_args[0] = ObjectIdGetDatum(task->release);
	charge_args[1] = ObjectIdGetDatum(task->caller);
	charge_args[2] = ObjectIdGetDatum(task->session_user);
	charge_args[3] = BoolGetDatum(task->may_restore);
	pgstat_report_activity(STATE_RUNNING, "invariant_dp: governed draw");
	PG_TRY();
	{
		TupleDesc	desc;
		HeapTuple	charged;
		bool		isnull;
		bool		restored;

		StartTransactionCommand();
		LockRelationIdForSession(&lock, ExclusiveLock);
		locked = true;
		CommitTransactionCommand();
		charged = run_transaction("SELECT draw_id, release_owner, restored FROM dp.charge_draw($1, $2, $3, $4)",
								  4, charge_types, charge_args, &desc, outer);
		if (charged == NULL)
			elog(ERROR, "dp.charge_draw returned no row");
		task->draw_id = DatumGetInt64(heap_getattr(charged, 1, desc, &isnull));
		task->release_owner = DatumGetObjectId(heap_getattr(charged, 2, desc, &isnull));
		restored = DatumGetBool(heap_getattr(charged, 3, desc, &isnull));
		task->charged = !restored;
		if (!restored)
		{
			store_args[0] = ObjectIdGetDatum(task->release);
			store_args[1] = Int64GetDatum(task->draw_id);
			(void) run_transaction("SELECT dp.store_draw($1, $2)", 2, store_types, store_args, NULL, outer);
		}
	}
	PG_CATCH();
	{
		record_failure(task, outer);
		/* Aborting a transaction releases the session's locks too. */
		locked = false;
	}
	PG_END_TRY();
	/* A charged draw that failed: the audit row says so; the charge stays. */
	if (task->failed && task->charged)
	{
		note_args[0] = Int64GetDatum(task->draw_id);
		note_args[1] = CStringGetTextDatum(unpack_sql_state(task->sqlerrcode));
		PG_TRY();
		{
			(void) run_transaction("SELECT dp.note_failed_draw($1, $2)", 2, note_types, note_args, NULL, outer);
		}
		PG_CATCH();
		{
			MemoryContextSwitchTo(outer);
			EmitErrorReport();
			FlushErrorState();
			AbortCurrentTransaction();
		}
		PG_END_TRY();
	}
	if (locked)
		UnlockRelationIdForSession(&lock, ExclusiveLock);
	pgstat_report_activity(STATE_IDLE, NULL);
}

void
dp_refresh_worker_main(Datum main_arg)
{
	dsm_segment *segment;
	DrawTask   *task;

	/* SIGTERM (the caller cancelled, or shutdown) aborts the transaction. */
	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();
	/* No resource owner yet: the mapping lasts until the worker exits. */
	segment = dsm_attach(DatumGetUInt32(main_arg));
	if (segment == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("invariant_dp draw worker: the request is gone")));
	task = dsm_segment_address(segment);
	remember_server_settings();
	BackgroundWorkerInitializeConnectionByOid(task->database, task->connect_as, 0);
	dp_in_refresh_worker = true;
	/*
	 * Nothing of the connecting role's or database's settings (ALTER
	 * DATABASE ... SET, which a database's owner may run) reaches the draw
	 * (worker_settings.h); its search_path, time limits, isolation, row
	 * security and the style keys are written in (a stream's released
	 * periods are kept as text) are the draw's own. A draw is bounded by its
	 * caller's wait.
	 */
	undo_injected_settings();
	SetConfigOption("search_path", "pg_catalog, pg_temp", PGC_SUSET, PGC_S_OVERRIDE);
	SetConfigOption("DateStyle", "ISO, YMD", PGC_SUSET, PGC_S_OVERRIDE);
	SetConfigOption("IntervalStyle", "postgres", PGC_SUSET, PGC_S_OVERRIDE);
	SetConfigOption("extra_float_digits", "1", PGC_SUSET, PGC_S_OVERRIDE);
	SetConfigOption("bytea_output", "hex", PGC_SUSET, PGC_S_OVERRIDE);
	SetConfigOption("statement_timeout", "0", PGC_SUSET, PGC_S_OVERRIDE);
	SetConfigOption("lock_timeout", "0", PGC_SUSET, PGC_S_OVERRIDE);
	SetConfigOption("idle_in_transaction_session_timeout", "0", PGC_SUSET, PGC_S_OVERRIDE);
	SetConfigOption("default_transaction_read_only", "off", PGC_SUSET, PGC_S_OVERRIDE);
	SetConfigOption("default_transaction_isolation", "read committed", PGC_SUSET, PGC_S_OVERRIDE);
	SetConfigOption("row_security", "on", PGC_SUSET, PGC_S_OVERRIDE);
	SetConfigOption("session_replication_role", "origin", PGC_SUSET, PGC_S_OVERRIDE);
	run_draw(task);
	pg_write_barrier();
	task->finished = true;
	proc_exit(0);
}

/* ---------------------------------------------------------------- caller */

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
	snprintf(worker.bgw_function_name, BGW_MAXLEN, "dp_refresh_worker_main");
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

/*
 * Draws release in a worker and returns the task's outcome (the worker's
 * error re-raised).
 */
static DrawTask
draw_in_worker(Oid release, bool may_restore)
{
	dsm_segment *segment;
	DrawTask   *task;
	DrawTask	outcome;
	BackgroundWorkerHandle *handle = NULL;
	Oid			connect_as;
	int			slot;

	check_release_relation(release);
	if (RecoveryInProgress())
		ereport(ERROR,
				(errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
				 errmsg("cannot draw a governed release during recovery"),
				 errhint("Draw on the primary; standbys replicate the stored draw.")));
	PreventCommandIfReadOnly("a governed draw");

	connect_as = catalog_owner();
	check_draw_allowed(release, connect_as, may_restore);

	segment = dsm_create(sizeof(DrawTask), 0);
	task = dsm_segment_address(segment);
	memset(task, 0, sizeof *task);
	task->database = MyDatabaseId;
	task->connect_as = connect_as;
	task->release = release;
	task->caller = GetUserId();
	task->session_user = GetSessionUserId();
	task->may_restore = may_restore;

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
	outcome = *task;
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

/* dp.refresh_release(release): a new draw; returns its audit id. */
Datum
dp_refresh_release(PG_FUNCTION_ARGS)
{
	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("release must not be NULL")));
	PG_RETURN_INT64(draw_in_worker(PG_GETARG_OID(0), false).draw_id);
}

/* The release's rows, read by read_release_rows. */
typedef struct ReleaseRead
{
	const char *query;
} ReleaseRead;

static void
read_release_rows(void *arg)
{
	const ReleaseRead *read = (const ReleaseRead *) arg;

	PushActiveSnapshot(GetLatestSnapshot());
	if (SPI_execute(read->query, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read a governed release");
	PopActiveSnapshot();
}

/*
 * The release's rows as committed by the worker, read as the release's
 * owner (run_as_role: a security-restricted operation under search_path
 * pg_catalog, pg_temp) with a snapshot taken now (the caller's own snapshot
 * may predate the draw under REPEATABLE READ).
 */
static void
return_release_rows(FunctionCallInfo fcinfo, Oid release, Oid owner)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	ReleaseRead read;
	uint64		i;

	read.query = psprintf("SELECT t FROM ONLY %s AS t",
						  quote_qualified_identifier(get_namespace_name(get_rel_namespace(release)),
													 get_rel_name(release)));
	InitMaterializedSRF(fcinfo, 0);
	SPI_connect();
	run_as_role(owner, "pg_catalog, pg_temp", read_release_rows, &read);
	for (i = 0; i < SPI_processed; i++)
	{
		bool		isnull;
		HeapTupleHeader row = DatumGetHeapTupleHeader(SPI_getbinval(SPI_tuptable->vals[i],
																	SPI_tuptable->tupdesc, 1, &isnull));
		HeapTupleData tuple;

		tuple.t_len = HeapTupleHeaderGetDatumLength(row);
		ItemPointerSetInvalid(&tuple.t_self);
		tuple.t_tableOid = InvalidOid;
		tuple.t_data = row;
		tuplestore_puttuple(rsinfo->setResult, &tuple);
	}
	SPI_finish();
}

/*
 * dp.draw(NULL::release): a new draw, returned with the release's row type
 * (for REFRESH MATERIALIZED VIEW). A release whose table was recreated by a
 * restore returns its restored draw instead, without drawing.
 */
Datum
dp_draw(PG_FUNCTION_ARGS)
{
	Oid			type = get_fn_expr_argtype(fcinfo->flinfo, 0);
	Oid			release = OidIsValid(type) ? typeidTypeRelid(type) : InvalidOid;
	DrawTask	outcome;

	if (!OidIsValid(release))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("type %s is not the row type of a governed release", format_type_be(type)),
				 errhint("Pass NULL cast to the release table's type: dp.draw(NULL::state_counts).")));
	outcome = draw_in_worker(release, true);
	return_release_rows(fcinfo, release, outcome.release_owner);
	return (Datum) 0;
}
