/*
 * The draw worker (draw_worker.h): it charges the draw (dp.charge_draw) in a
 * transaction it commits before any noise exists, then makes and stores it
 * (dp.store_draw) in a second one, holding a lock on the release table
 * across both, and writes its outcome into the task for the caller.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "storage/dsm.h"
#include "storage/ipc.h"
#include "storage/lmgr.h"
#include "tcop/tcopprot.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"

#include "draw_task.h"
#include "draw_worker.h"
#include "worker_settings.h"

bool		dp_in_draw_worker = false;

void
require_draw_worker(const char *function)
{
	if (!dp_in_draw_worker)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("%s runs only inside a governed draw", function),
				 errhint("Use dp.refresh_release(release) or dp.draw(NULL::release); if they call this "
						 "function directly, the extension's SQL is older than its library: "
						 "ALTER EXTENSION invariant_dp UPDATE.")));
}

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
 * The charge, in a transaction committed before any noise exists: fills the
 * task's audit id and release owner. False for a release restored from a
 * dump, whose stored draw is returned instead (nothing charged or drawn).
 */
static bool
commit_charge(DrawTask *task, MemoryContext outer)
{
	Oid			types[4] = {REGCLASSOID, REGROLEOID, REGROLEOID, BOOLOID};
	Datum		args[4];
	TupleDesc	desc;
	HeapTuple	charged;
	bool		isnull;

	args[0] = ObjectIdGetDatum(task->release);
	args[1] = ObjectIdGetDatum(task->caller);
	args[2] = ObjectIdGetDatum(task->session_user);
	args[3] = BoolGetDatum(task->may_restore);
	charged = run_transaction("SELECT draw_id, release_owner, restored FROM dp.charge_draw($1, $2, $3, $4)",
							  4, types, args, &desc, outer);
	if (charged == NULL)
		elog(ERROR, "dp.charge_draw returned no row");
	task->draw_id = DatumGetInt64(heap_getattr(charged, 1, desc, &isnull));
	task->release_owner = DatumGetObjectId(heap_getattr(charged, 2, desc, &isnull));
	task->charged = !DatumGetBool(heap_getattr(charged, 3, desc, &isnull));
	return task->charged;
}

/* The draw itself, stored and audited, in a second transaction. */
static void
commit_draw(const DrawTask *task, MemoryContext outer)
{
	Oid			types[2] = {REGCLASSOID, INT8OID};
	Datum		args[2];

	args[0] = ObjectIdGetDatum(task->release);
	args[1] = Int64GetDatum(task->draw_id);
	(void) run_transaction("SELECT dp.store_draw($1, $2)", 2, types, args, NULL, outer);
}

/* A charged draw that failed: the audit row says so; the charge stays. */
static void
audit_failure(const DrawTask *task, MemoryContext outer)
{
	Oid			types[2] = {INT8OID, TEXTOID};
	Datum		args[2];

	args[0] = Int64GetDatum(task->draw_id);
	args[1] = CStringGetTextDatum(unpack_sql_state(task->sqlerrcode));
	PG_TRY();
	{
		(void) run_transaction("SELECT dp.note_failed_draw($1, $2)", 2, types, args, NULL, outer);
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
	volatile bool locked = false;

	pgstat_report_activity(STATE_RUNNING, "invariant_dp: governed draw");
	PG_TRY();
	{
		StartTransactionCommand();
		LockRelationIdForSession(&lock, ExclusiveLock);
		locked = true;
		CommitTransactionCommand();
		if (commit_charge(task, outer))
			commit_draw(task, outer);
	}
	PG_CATCH();
	{
		record_failure(task, outer);
		/* Aborting a transaction releases the session's locks too. */
		locked = false;
	}
	PG_END_TRY();
	if (task->failed && task->charged)
		audit_failure(task, outer);
	if (locked)
		UnlockRelationIdForSession(&lock, ExclusiveLock);
	pgstat_report_activity(STATE_IDLE, NULL);
}

void
dp_draw_worker_main(Datum main_arg)
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
	dp_in_draw_worker = true;
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
	/*
	 * A draw takes one slot of dp.max_draw_workers and nothing more: its
	 * source runs without parallel workers, which would otherwise come out of
	 * the pool other roles' queries and other draws share.
	 */
	SetConfigOption("max_parallel_workers_per_gather", "0", PGC_SUSET, PGC_S_OVERRIDE);
	run_draw(task);
	pg_write_barrier();
	task->finished = true;
	proc_exit(0);
}
