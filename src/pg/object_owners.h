/*
 * Whose objects a governed release may use. A stored source runs later with
 * its registering role's privileges, and every draw writes its release
 * table; the owner of a function, view or type they use could redefine it
 * then. Only the registering role (the caller at registration, the current
 * user at a draw) and superusers are trusted owners; a schema is trusted
 * when only they can create objects in it, since a function body resolves
 * names there at every draw.
 */
#ifndef INVARIANT_DP_OBJECT_OWNERS_H
#define INVARIANT_DP_OBJECT_OWNERS_H

#include "postgres.h"

/* The caller or a superuser. */
extern bool trusted_owner(Oid owner);

/* Raises 42501 naming what (e.g. "function f(int)") and its owner. */
extern void refuse_untrusted_owner(const char *what, const char *name, Oid owner);

/* A type, its element, base and attribute types: trusted owners only (42501). */
extern void check_type_owners(Oid type);

/*
 * Whether only trusted roles can create objects in the schema: its owner
 * (pg_database_owner: the database's owner) and every role granted CREATE
 * on it are trusted owners, and PUBLIC has no CREATE.
 */
extern bool trusted_schema(Oid namespace, Oid *untrusted_role);

/*
 * The schemas of a search_path (as pinned: quoted names, pg_temp last) that
 * are trusted, as a search_path again; each one left out is reported by
 * a NOTICE (report) or refused with 42501 (!report).
 */
extern char *trusted_search_path(const char *search_path, bool report);

#endif
