/*
 * Reads a source or domain query (see source_reader.h): runs it through SPI
 * into the receiver (source_receiver.c), which codes the rows as they
 * arrive; query_rows.c reads them back. Everything here is C: errors are
 * ordinary ereports, and the rows land in the memory context that was
 * current when read_query_rows was called.
 */
#include "postgres.h"

#include "access/xact.h"
#include "executor/spi.h"

#include "source_reader_internal.h"

void
read_query_rows(const char *query, QueryRows *rows)
{
	RowCollector collector;
	SPIExecuteOptions options;
	int			rc;
	bool		saved_read_only;

	check_single_select(query, rows->what);
	memset(&collector, 0, sizeof collector);
	collector.pub.receiveSlot = collector_receive;
	collector.pub.rStartup = collector_startup;
	collector.pub.rShutdown = collector_noop;
	collector.pub.rDestroy = collector_noop;
	/* Not DestNone (SPI would report a discarded result) nor DestSPI. */
	collector.pub.mydest = DestTuplestore;
	collector.rows = rows;
	collector.cxt = CurrentMemoryContext;

	memset(&options, 0, sizeof options);
	options.read_only = true;
	options.dest = (DestReceiver *) &collector;
	/*
	 * SPI's read_only refuses data-modifying statements in the query itself;
	 * a read-only transaction state also stops the functions it calls from
	 * writing (INSERT, nextval, ...). Restored afterwards: the caller's own
	 * transaction may write (a governed draw stores what it read).
	 */
	saved_read_only = XactReadOnly;
	XactReadOnly = true;
	PG_TRY();
	{
		rc = SPI_execute_extended(query, &options);
	}
	PG_FINALLY();
	{
		XactReadOnly = saved_read_only;
	}
	PG_END_TRY();
	/* SPI returns in its own context: the rows' memory is the caller's. */
	MemoryContextSwitchTo(collector.cxt);
	if (rc != SPI_OK_SELECT)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be a single SELECT query", rows->what),
				 errdetail("SPI returned %s.", SPI_result_code_string(rc))));
	code_batch(rows);
}
