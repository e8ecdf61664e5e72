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
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "arguments.h"
#include "core_bridge.h"
#include "source_reader.h"

PG_FUNCTION_INFO_V1(dp_diagnose);

static const RequestArguments diagnose_arguments = {
	.epsilon = 1, .mechanism = 2, .delta = 3, .margins = 4, .options = 5, .hierarchy = -1,
	.privacy_unit = -1, .bounds = -1
};

/* A key the core names in an error, from the source's rows. */
static char *
render_key(const idp_key_ref *key, void *arg)
{
	return describe_keys((const QueryRows *) arg, key->row, key->columns);
}

/* The rows that say the diagnosis bounds nothing, or that a chain never moved, also warn. */
static void
warn_about(const idp_diagnostic_row *row)
{
	if (strcmp(row->metric, "censored_pairs") == 0 && row->value > 0)
		ereport(WARNING,
				(errmsg("%.0f coupled chain pairs did not meet: the total variation bound is censored and bounds nothing",
						row->value),
				 errdetail("A pair that does not meet within the diagnosis's iterations counts as distance 1, so "
						   "the tv_censored_bound rows are no bound on the chain's distance from its law, and "
						   "the release's guarantee (epsilon, delta + TV) is not certified at this size."),
				 errhint("For a release drawn exactly use mechanism integer_gaussian, or integer_laplace on "
						 "tables with a line of two or three levels.")));
	if (strcmp(row->metric, "chains_never_moved") == 0 && row->value > 0)
		ereport(WARNING,
				(errmsg("%.0f of the diagnosed chains never moved from their start", row->value),
				 errdetail("A chain that accepts no move releases its starting table, not a draw of the law; "
						   "its R-hat says nothing of that."),
				 errhint("Use the default sampler, or more iterations, or a larger epsilon.")));
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

		warn_about(&rows[i]);
		values[0] = CStringGetTextDatum(rows[i].metric);
		values[1] = Int64GetDatum(rows[i].iteration);
		values[2] = Float8GetDatum(rows[i].value);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
}

/* The prepared diagnosis, freed with the statement's memory (on error too). */
typedef struct PreparedDiagnosis
{
	idp_prepared_diagnosis *prepared;
	MemoryContextCallback free_prepared;
} PreparedDiagnosis;

static void
free_prepared_diagnosis(void *arg)
{
	PreparedDiagnosis *p = (PreparedDiagnosis *) arg;

	idp_free_prepared_diagnosis(p->prepared);
	p->prepared = NULL;
}

/* The request checked once, before the source runs. */
static PreparedDiagnosis *
prepare_diagnosis(FunctionCallInfo fcinfo, bool *source_rows)
{
	PreparedDiagnosis *p = palloc0(sizeof(PreparedDiagnosis));
	idp_request request;
	idp_error	error;

	unpack_request(fcinfo, &diagnose_arguments, &request);
	if (idp_prepare_diagnosis(&request, &p->prepared, source_rows, &error) != IDP_OK)
		raise_core_error(&error);
	p->free_prepared.func = free_prepared_diagnosis;
	p->free_prepared.arg = p;
	MemoryContextRegisterResetCallback(CurrentMemoryContext, &p->free_prepared);
	return p;
}

Datum
dp_diagnose(PG_FUNCTION_ARGS)
{
	char	   *source = required_text(fcinfo, 0, "source");
	bool		source_rows = false;
	PreparedDiagnosis *p = prepare_diagnosis(fcinfo, &source_rows);
	QueryRows	rows;
	idp_cells	cells;
	idp_randomness randomness = current_randomness();
	idp_interrupts interrupts = pg_interrupts();
	idp_diagnostic_row *diagnostics = NULL;
	size_t		n = 0;
	idp_error	error;

	SPI_connect();
	memset(&rows, 0, sizeof rows);
	rows.what = "source";
	rows.has_count = !source_rows;
	read_query_rows(source, &rows);
	cells = query_cells(&rows, NULL);
	idp_keep_results_for(GetUserId());
	if (idp_diagnose(p->prepared, &cells, &randomness, &interrupts, &diagnostics, &n, &error) != IDP_OK)
		raise_core_error_rendered(&error, render_key, &rows);
	pack_rows(fcinfo, diagnostics, n);
	idp_free(diagnostics);
	SPI_finish();
	return (Datum) 0;
}
