/*
 * What a governed source uses (source_relations.c): its relations,
 * functions and domains, found by parse analysis, never by running it.
 */
#ifndef INVARIANT_DP_SOURCE_RELATIONS_H
#define INVARIANT_DP_SOURCE_RELATIONS_H

#include "postgres.h"

/*
 * Refuses (42501) a query a governed release may not store or draw: a
 * volatile function, any function, table, view or domain owned by another
 * role than the current user or a superuser, a function whose own
 * search_path has a schema others can write. Must run as the release's
 * owner (its registering role).
 */
extern void check_governed_query(const char *query);

#endif
