/*
 * dp.seed is superuser-only (PGC_SUSET) and hidden from other roles
 * (GUC_SUPERUSER_ONLY): whoever knows the seed can subtract the noise, so an
 * analyst must never be able to set or read it. It exists for tests and for
 * reproducing a release under an administrator's control.
 */
#include "postgres.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>

#include "access/parallel.h"
#include "nodes/parsenodes.h"
#include "tcop/utility.h"
#include "utils/guc.h"

#include "gucs.h"

bool		dp_seed_is_set = false;
uint64		dp_seed_value = 0;
uint64		dp_seed_generation = 0;
int			dp_max_cells = 10000000;
bool		dp_privatize_scan = true;
int			dp_max_source_memory = 2 * 1024 * 1024;
int			dp_progress_interval = -1;
int			dp_max_draw_workers = 2;

static char *dp_seed_text = NULL;

/* A client's SET dp.seed statement is being run (seed_set_hook). */
static bool seed_from_statement = false;
static ProcessUtility_hook_type previous_process_utility = NULL;

static bool
check_seed(char **newval, void **extra, GucSource source)
{
	char	   *end;
	unsigned long long value;

	if (*newval == NULL || (*newval)[0] == '\0')
		return true;
	/*
	 * Only a superuser's SET statement in one session, sent by the client. A
	 * seed in postgresql.conf, on the command line or in the environment
	 * would give every session the same noise stream: an analyst who
	 * releases an all-zero table in a fresh session learns the noise of the
	 * next scheduled draw. ALTER DATABASE/ROLE ... SET and a function's SET
	 * clause store it where every role can read it; a function applies its
	 * SET clause in the session of whoever calls it. Each of those arrives
	 * here without the statement flag, as does a value set before the
	 * library was loaded in the session (it cannot be told from a function's).
	 * A parallel worker restores its leader's session values, this one
	 * included, which passed here when they were set: refused, every
	 * parallel query of a seeded session would fail (assign_seed keeps the
	 * worker's own draws unseeded).
	 */
	if (!seed_from_statement && !InitializingParallelWorker)
	{
		GUC_check_errdetail("dp.seed is accepted only from SET in a session: set anywhere else it would be "
							"shared by other sessions or readable by every role, and whoever knows the seed "
							"can remove the noise.");
		GUC_check_errhint("Run SET dp.seed = ... as a superuser in the session that needs it, once the library is "
						  "loaded there (LOAD 'invariant_dp', or any dp function first).");
		return false;
	}
	errno = 0;
	value = strtoull(*newval, &end, 10);
	if (errno != 0 || *end != '\0' || (*newval)[0] == '-')
	{
		GUC_check_errdetail("dp.seed must be empty or an integer between 0 and 18446744073709551615.");
		return false;
	}
	(void) value;
	return true;
}

/*
 * A parallel worker never takes the seed: should it ever draw (a final
 * function run below a Gather), the leader's seed would repeat the leader's
 * noise, and every worker's; its draws come from the CSPRNG.
 */
static void
assign_seed(const char *newval, void *extra)
{
	dp_seed_is_set = newval != NULL && newval[0] != '\0' && !IsParallelWorker();
	dp_seed_value = dp_seed_is_set ? strtoull(newval, NULL, 10) : 0;
	dp_seed_generation++;
}

/* Marks a top-level SET dp.seed statement while it runs (check_seed). */
static void
seed_set_hook(PlannedStmt *statement, const char *query, bool read_only_tree, ProcessUtilityContext context,
			  ParamListInfo params, QueryEnvironment *environment, DestReceiver *dest, QueryCompletion *completion)
{
	Node	   *node = statement->utilityStmt;
	bool		marks = context == PROCESS_UTILITY_TOPLEVEL && IsA(node, VariableSetStmt) &&
		((VariableSetStmt *) node)->name != NULL && pg_strcasecmp(((VariableSetStmt *) node)->name, "dp.seed") == 0;

	seed_from_statement = marks;
	PG_TRY();
	{
		if (previous_process_utility)
			previous_process_utility(statement, query, read_only_tree, context, params, environment, dest, completion);
		else
			standard_ProcessUtility(statement, query, read_only_tree, context, params, environment, dest,
									completion);
	}
	PG_FINALLY();
	{
		seed_from_statement = false;
	}
	PG_END_TRY();
}

void
define_gucs(void)
{
	previous_process_utility = ProcessUtility_hook;
	ProcessUtility_hook = seed_set_hook;
	DefineCustomStringVariable("dp.seed",
							   "Fixed seed for the noise (testing only; superuser only).",
							   "Empty means noise comes from the operating system's CSPRNG. "
							   "Anyone who knows the seed can remove the noise.",
							   &dp_seed_text, "",
							   PGC_SUSET, GUC_SUPERUSER_ONLY | GUC_NOT_IN_SAMPLE,
							   check_seed, assign_seed, NULL);
	DefineCustomIntVariable("dp.max_cells",
							"The most cells one release may hold.",
							"A source or domain returning more rows is refused before memory runs out.",
							&dp_max_cells, 10000000, 1, INT_MAX,
							PGC_SUSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("dp.max_source_memory",
							"The most memory the rows of one release's source or domain may take.",
							"Counts the keys, their copies and the counts as they are read; a source needing "
							"more is refused before memory runs out, whatever its row count.",
							&dp_max_source_memory, 2 * 1024 * 1024, 1024, INT_MAX,
							PGC_SUSET, GUC_UNIT_KB, NULL, NULL, NULL);
	DefineCustomIntVariable("dp.progress_interval",
							"Report progress of long releases as NOTICEs at most this often (milliseconds).",
							"-1 (the default) turns progress reports off; 0 reports every step.",
							&dp_progress_interval, -1, -1, INT_MAX,
							PGC_USERSET, GUC_UNIT_MS, NULL, NULL, NULL);
	DefineCustomIntVariable("dp.max_draw_workers",
							"The most governed draws that run at once in the cluster.",
							"Each draw runs in a background worker of its own; draws beyond this many wait "
							"for one to end, so background-worker slots remain for parallel query and others.",
							&dp_max_draw_workers, 2, 1, 1024,
							PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("dp.privatize_scan",
							 "Return dp.privatize's rows in FROM without storing them first.",
							 "A custom scan makes the release when it is first read and returns its rows one by "
							 "one; off: the executor's function scan stores them in a tuplestore first.",
							 &dp_privatize_scan, true, PGC_USERSET, 0, NULL, NULL, NULL);
	MarkGUCPrefixReserved("dp");
}
