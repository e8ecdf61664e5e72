/*
 * A governed draw's request and outcome (draw_launcher.c asks, draw_worker.c
 * answers), in a dynamic shared memory segment both attach.
 */
#ifndef INVARIANT_DP_DRAW_TASK_H
#define INVARIANT_DP_DRAW_TASK_H

#include "postgres.h"

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

#endif
