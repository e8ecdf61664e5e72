/*
 * A draw worker connects as the catalog's owner, and connecting applies the
 * settings stored for its database and role (ALTER DATABASE ... SET, which
 * a database's owner may run without being a superuser; ALTER ROLE ...
 * SET). None of them may reach a draw: `role` would run it as another
 * role, `TimeZone` or `DateStyle` would change what its source returns and
 * how a stream's periods are written, plpgsql's settings could make the
 * catalog's functions fail. The worker remembers the server's own settings
 * before it connects and puts back every one a database or role default
 * changed.
 */
#ifndef INVARIANT_DP_WORKER_SETTINGS_H
#define INVARIANT_DP_WORKER_SETTINGS_H

/* Before BackgroundWorkerInitializeConnection*: the server's settings. */
extern void remember_server_settings(void);

/* After it: every setting a database or role default changed, put back. */
extern void undo_injected_settings(void);

#endif
