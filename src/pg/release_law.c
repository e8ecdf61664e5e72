/*
 * Which release a row type is, where its noise law comes from, and the
 * core's structure of it kept for the session (margin_of_error.h).
 *
 * The structure costs a scan of the table (O(rows)); sums then cost
 * O(rows in the sum). It is kept, at most CACHED at a time: a governed
 * release's until its next draw (the key is the draw's id, and the table's
 * file, which a restore or TRUNCATE changes); a table given with its law
 * while the statements that use it see it as the one that read it did (the
 * same snapshot: nothing else tells when such a table changes). Rows are
 * identified by their whole value, so a kept structure that does not know
 * a row is read again from the table before anything is refused.
 * Rights are checked at every call, kept structure or not.
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/table.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "storage/proc.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/rls.h"
#include "utils/snapmgr.h"

#include "margin_of_error.h"

#define CACHED 4

typedef struct CachedRelease
{
	idp_accuracy *accuracy;		/* NULL: a free slot */
	Oid			relid;
	Oid			relfilenode;
	bool		governed;
	int64		draw_id;
	char	   *law;			/* a given law, compared whole */
	/* A given law's table as the snapshot that read it saw it. */
	LocalTransactionId lxid;
	TransactionId xmin;
	TransactionId xmax;
	CommandId	curcid;
	uint32		xcnt;
	int32		subxcnt;
	uint64		used;
} CachedRelease;

static CachedRelease cache[CACHED];
static uint64 clock_hand = 0;

static void
forget(CachedRelease *c)
{
	idp_accuracy_free(c->accuracy);
	if (c->law)
		pfree(c->law);
	memset(c, 0, sizeof *c);
}

/* Whether a snapshot sees what the one that read a kept table saw (no commit between them). */
static bool
seen_alike(const CachedRelease *c, Snapshot s)
{
	return c->lxid == MyProc->lxid && c->xmin == s->xmin && c->xmax == s->xmax && c->curcid == s->curcid &&
		c->xcnt == s->xcnt && c->subxcnt == s->subxcnt;
}

static bool
matches(const CachedRelease *c, Relation rel, const ReleaseLaw *law)
{
	if (c->accuracy == NULL || c->relid != RelationGetRelid(rel) || c->relfilenode != rel->rd_node.relNode ||
		c->governed != law->governed)
		return false;
	if (law->governed)
		return c->draw_id == law->draw_id;
	return seen_alike(c, GetActiveSnapshot()) && strcmp(c->law, law->text) == 0;
}

static void
keep(Relation rel, const ReleaseLaw *law, idp_accuracy *accuracy)
{
	CachedRelease *slot = &cache[0];
	int			i;

	for (i = 1; i < CACHED; i++)
		if (cache[i].accuracy == NULL || (slot->accuracy != NULL && cache[i].used < slot->used))
			slot = &cache[i];
	if (slot->accuracy != NULL)
		forget(slot);
	slot->accuracy = accuracy;
	slot->relid = RelationGetRelid(rel);
	slot->relfilenode = rel->rd_node.relNode;
	slot->governed = law->governed;
	slot->draw_id = law->draw_id;
	slot->law = law->governed ? NULL : MemoryContextStrdup(TopMemoryContext, law->text);
	slot->lxid = MyProc->lxid;
	slot->xmin = GetActiveSnapshot()->xmin;
	slot->xmax = GetActiveSnapshot()->xmax;
	slot->curcid = GetActiveSnapshot()->curcid;
	slot->xcnt = GetActiveSnapshot()->xcnt;
	slot->subxcnt = GetActiveSnapshot()->subxcnt;
	slot->used = ++clock_hand;
}

/*
 * The caller may read every row of rel as its query would: SELECT on the
 * table or on every column, and no row-level security policy applying.
 */
static void
check_readable(Relation rel)
{
	Oid			relid = RelationGetRelid(rel);
	char		relkind = rel->rd_rel->relkind;

	if (relkind != RELKIND_RELATION && relkind != RELKIND_MATVIEW)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("error bars are computed over a table's rows, and \"%s\" is not a table",
						RelationGetRelationName(rel)),
				 errhint("Aggregate the release table's own rows: FROM release r ... dp.margin_of_error(r, 0.95).")));
	if (pg_class_aclcheck(relid, GetUserId(), ACL_SELECT) != ACLCHECK_OK &&
		pg_attribute_aclcheck_all(relid, GetUserId(), ACL_SELECT, ACLMASK_ALL) != ACLCHECK_OK)
		aclcheck_error(ACLCHECK_NO_PRIV, get_relkind_objtype(relkind), RelationGetRelationName(rel));
	if (check_enable_rls(relid, InvalidOid, false) == RLS_ENABLED)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("table \"%s\" has row-level security, so its error bars cannot be computed",
						RelationGetRelationName(rel)),
				 errdetail("Error bars are built from every row of the release, and the policy hides some.")));
	if (relkind == RELKIND_MATVIEW && !RelationIsPopulated(rel))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("materialized view \"%s\" has not been populated", RelationGetRelationName(rel))));
}

idp_accuracy *
prepared_release(Oid relid, const ReleaseLaw *law, bool fresh)
{
	Relation	rel = table_open(relid, AccessShareLock);
	idp_accuracy *accuracy;
	int			i;

	check_readable(rel);
	for (i = 0; i < CACHED; i++)
	{
		if (!matches(&cache[i], rel, law))
			continue;
		if (!fresh)
		{
			cache[i].used = ++clock_hand;
			table_close(rel, NoLock);
			return cache[i].accuracy;
		}
		forget(&cache[i]);
	}
	accuracy = read_release_table(rel, law);
	keep(rel, law, accuracy);
	table_close(rel, NoLock);
	return accuracy;
}

static char *
relation_name(Oid relid)
{
	return DatumGetCString(DirectFunctionCall1(regclassout, ObjectIdGetDatum(relid)));
}

/* A text[] result column as C strings in the caller's context. */
static int
names_of(Datum array, char ***names)
{
	Datum	   *elements;
	bool	   *nulls;
	int			n;
	int			i;

	deconstruct_array(DatumGetArrayTypeP(array), TEXTOID, -1, false, TYPALIGN_INT, &elements, &nulls, &n);
	*names = palloc(sizeof(char *) * Max(n, 1));
	for (i = 0; i < n; i++)
		(*names)[i] = nulls[i] ? pstrdup("") : TextDatumGetCString(elements[i]);
	return n;
}

void
governed_release_law(Oid relid, ReleaseLaw *law)
{
	MemoryContext caller = CurrentMemoryContext;
	Oid			types[1] = {REGCLASSOID};
	Datum		values[1] = {ObjectIdGetDatum(relid)};
	bool		isnull;
	Datum		d;

	memset(law, 0, sizeof *law);
	law->governed = true;
	SPI_connect();
	/* As the caller; every name written with its schema. */
	if (SPI_execute_with_args("SELECT l.noise_law::pg_catalog.text, l.draw_id, l.key_columns "
							  "FROM dp.release_laws l WHERE l.release OPERATOR(pg_catalog.=) $1",
							  1, types, values, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not read dp.release_laws");
	if (SPI_processed == 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("%s is not a governed release", relation_name(relid)),
				 errhint("For a release that is not governed (a stored dp.privatize result), pass its noise law: "
						 "dp.margin_of_error(r, 0.95, noise_law).")));
	d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("governed release %s has no draw yet", relation_name(relid)),
				 errhint("Its error bars follow from the noise law of its draw: refresh it first "
						 "(dp.refresh_release).")));
	MemoryContextSwitchTo(caller);
	law->text = TextDatumGetCString(d);
	law->draw_id = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull));
	d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 3, &isnull);
	if (!isnull)
		law->n_key_names = names_of(d, &law->key_names);
	SPI_finish();
}
