/* run_as_role: see run_as.h. */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/guc.h"

#include "run_as.h"

void
run_as_role(Oid role, const char *search_path, RunAsFn fn, void *arg)
{
	Oid			saved_user;
	int			saved_context;
	int			guc_level;

	GetUserIdAndSecContext(&saved_user, &saved_context);
	SetUserIdAndSecContext(role, saved_context | SECURITY_LOCAL_USERID_CHANGE | SECURITY_RESTRICTED_OPERATION);
	guc_level = NewGUCNestLevel();
	PG_TRY();
	{
		(void) set_config_option("search_path", search_path, PGC_USERSET, PGC_S_SESSION,
								 GUC_ACTION_SAVE, true, 0, false);
		fn(arg);
	}
	PG_FINALLY();
	{
		AtEOXact_GUC(false, guc_level);
		SetUserIdAndSecContext(saved_user, saved_context);
	}
	PG_END_TRY();
}
