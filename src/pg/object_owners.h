/*
 * Whose objects a governed release may use. A stored source runs later with
 * its registering role's privileges, and every draw writes its release
 * table; the owner of a function, view or type they use could redefine it
 * then. Only the registering role (the caller at registration) and
 * superusers are trusted owners.
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

#endif
