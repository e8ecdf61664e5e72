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

#include "utils/guc.h"

#include "gucs.h"

bool		dp_seed_is_set = false;
uint64		dp_seed_value = 0;
uint64		dp_seed_generation = 0;
int			dp_max_cells = 10000000;
int			dp_progress_interval = -1;

static char *dp_seed_text = NULL;

static bool
check_seed(char **newval, void **extra, GucSource source)
{
	char	   *end;
	unsigned long long value;

	if (*newval == NULL || (*newval)[0] == '\0')
		return true;
	/*
	 * ALTER DATABASE/ROLE ... SET (validated as PGC_S_TEST, applied from
	 * PGC_S_DATABASE/USER) and CREATE FUNCTION ... SET store the value in
	 * pg_db_role_setting or pg_proc, which every role can read: a seed kept
	 * there is no secret.
	 */
	if (source == PGC_S_TEST || source == PGC_S_DATABASE || source == PGC_S_USER ||
		source == PGC_S_DATABASE_USER)
	{
		GUC_check_errdetail("A dp.seed stored with ALTER DATABASE, ALTER ROLE or a function's SET clause is "
							"readable by every role, and whoever knows the seed can remove the noise.");
		GUC_check_errhint("Set it for a session with SET, or in postgresql.conf.");
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

static void
assign_seed(const char *newval, void *extra)
{
	dp_seed_is_set = newval != NULL && newval[0] != '\0';
	dp_seed_value = dp_seed_is_set ? strtoull(newval, NULL, 10) : 0;
	dp_seed_generation++;
}

void
define_gucs(void)
{
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
	DefineCustomIntVariable("dp.progress_interval",
							"Report progress of long releases as NOTICEs at most this often (milliseconds).",
							"-1 (the default) turns progress reports off; 0 reports every step.",
							&dp_progress_interval, -1, -1, INT_MAX,
							PGC_USERSET, GUC_UNIT_MS, NULL, NULL, NULL);
	MarkGUCPrefixReserved("dp");
}
