/*
 * dp.diagnose(source, epsilon, mechanism, delta, margins, options): the MCMC
 * health of the lattice sampler a dp.privatize call with the same arguments
 * would use, as rows (metric, iteration, value). Reads the source's keys
 * only: the chains run on the noise, never on the counts.
 */
#include "postgres.h"

#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/builtins.h"

#include "arguments.h"
#include "core_bridge.h"
#include "source_reader.h"

PG_FUNCTION_INFO_V1(dp_diagnose);

static void
unpack_diagnose(FunctionCallInfo fcinfo, idp_request *request, char **source)
{
	memset(request, 0, sizeof *request);
	*source = required_text(fcinfo, 0, "source");
	request->epsilon = required_float8(fcinfo, 1, "epsilon");
	request->mechanism = required_text(fcinfo, 2, "mechanism");
	request->has_delta = !PG_ARGISNULL(3);
	request->delta = request->has_delta ? PG_GETARG_FLOAT8(3) : 0;
	unpack_margins(fcinfo, 4, request);
	unpack_options(fcinfo, 5, request);
}

static idp_cells
keys_only(const QueryRows *rows)
{
	idp_cells	cells;

	memset(&cells, 0, sizeof cells);
	cells.n_columns = rows->n_keys;
	cells.column_names = (const char *const *) rows->key_names;
	cells.n_source_rows = rows->n_rows;
	cells.source_keys = (const char *const *) rows->key_text;
	return cells;
}

static void
pack_rows(FunctionCallInfo fcinfo, const idp_diagnostic_row *rows, size_t n)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	size_t		i;

	InitMaterializedSRF(fcinfo, 0);
	for (i = 0; i < n; i++)
	{
		Datum		values[3];
		bool		nulls[3] = {false, !rows[i].has_iteration, false};

		values[0] = CStringGetTextDatum(rows[i].metric);
		values[1] = Int64GetDatum(rows[i].iteration);
		values[2] = Float8GetDatum(rows[i].value);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
}

Datum
dp_diagnose(PG_FUNCTION_ARGS)
{
	idp_request request;
	char	   *source;
	QueryRows	rows;
	idp_cells	cells;
	idp_randomness randomness = current_randomness();
	idp_interrupts interrupts = pg_interrupts();
	idp_diagnostic_row *diagnostics = NULL;
	size_t		n = 0;
	idp_error	error;

	unpack_diagnose(fcinfo, &request, &source);
	SPI_connect();
	memset(&rows, 0, sizeof rows);
	rows.what = "source";
	rows.has_count = true;
	read_query_rows(source, &rows);
	cells = keys_only(&rows);
	if (idp_diagnose(&request, &cells, &randomness, &interrupts, &diagnostics, &n, &error) != IDP_OK)
		raise_core_error(&error);
	pack_rows(fcinfo, diagnostics, n);
	idp_free(diagnostics);
	SPI_finish();
	return (Datum) 0;
}
