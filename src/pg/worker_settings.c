/* The draw worker's settings: see worker_settings.h. */
#include "postgres.h"

#include "access/xact.h"
#include "fmgr.h"
#include "utils/guc.h"
#include "utils/guc_tables.h"
#include "utils/memutils.h"

#include "worker_settings.h"

typedef struct ServerSetting
{
	const char *name;
	const char *value;			/* NULL: a string setting that was unset */
} ServerSetting;

static ServerSetting *server_settings = NULL;
static int	n_server_settings = 0;

void
remember_server_settings(void)
{
	struct config_generic **variables;
	int			n;
	int			i;

	/*
	 * plpgsql's settings (plpgsql.extra_errors, variable_conflict) change how
	 * the catalog's functions run: defined now, before a database's settings
	 * can create placeholders for them, they are reset like any other.
	 */
	load_file("plpgsql", false);
	variables = get_guc_variables();
	n = GetNumConfigOptions();
	server_settings = MemoryContextAllocZero(TopMemoryContext, sizeof(ServerSetting) * Max(n, 1));
	for (i = 0; i < n; i++)
	{
		const char *value;

		if (variables[i]->flags & GUC_CUSTOM_PLACEHOLDER)
			continue;
		value = GetConfigOption(variables[i]->name, true, false);
		server_settings[n_server_settings].name = MemoryContextStrdup(TopMemoryContext, variables[i]->name);
		server_settings[n_server_settings].value = value ? MemoryContextStrdup(TopMemoryContext, value) : NULL;
		n_server_settings++;
	}
}

static const ServerSetting *
server_setting(const char *name)
{
	int			i;

	for (i = 0; i < n_server_settings; i++)
		if (strcmp(server_settings[i].name, name) == 0)
			return &server_settings[i];
	return NULL;
}

/* Set by ALTER DATABASE / ALTER ROLE ... SET: not the server's own. */
static bool
injected(GucSource source)
{
	return source == PGC_S_GLOBAL || source == PGC_S_DATABASE || source == PGC_S_USER ||
		source == PGC_S_DATABASE_USER;
}

void
undo_injected_settings(void)
{
	struct config_generic **variables = get_guc_variables();
	int			n = GetNumConfigOptions();
	int			i;

	StartTransactionCommand();
	for (i = 0; i < n; i++)
	{
		struct config_generic *variable = variables[i];
		const ServerSetting *setting;

		if (!injected(variable->source))
			continue;
		setting = server_setting(variable->name);
		/*
		 * A placeholder (a library not loaded here) keeps its value; settings
		 * fixed at connection start (PGC_BACKEND) only tune the session.
		 */
		if (setting == NULL || variable->context == PGC_BACKEND || variable->context == PGC_SU_BACKEND)
			continue;
		(void) set_config_option(variable->name, setting->value, PGC_SUSET, PGC_S_OVERRIDE, GUC_ACTION_SET,
								 true, ERROR, false);
	}
	CommitTransactionCommand();
}
