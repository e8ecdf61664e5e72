/*
 * dp.check_release_objects(release, owner, search_path, source_view,
 * domain_view): what a governed draw uses, checked again at every draw,
 * since any of it may have changed since the release was registered. The
 * draw writes the release table as the catalog's owner and reads the
 * pinned views with the release owner's rights: nothing another role made
 * may run there, and nobody but the owner may read the pinned views.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_class.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "object_owners.h"
#include "draw_worker.h"
#include "run_as.h"
#include "source_relations.h"

PG_FUNCTION_INFO_V1(dp_check_release_objects);

typedef struct DrawObjects
{
	Oid			release;
	Oid			owner;
	const char *search_path;
	Oid			views[2];		/* the pinned source and domain (InvalidOid: none) */
} DrawObjects;

static char *
relation_name(Oid relid)
{
	return quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)), get_rel_name(relid));
}

static void
refuse(Oid release, const char *detail, const char *hint)
{
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("governed release %s cannot be drawn", relation_name(release)),
			 errdetail_internal("%s", detail),
			 errhint("%s", hint)));
}

/* Whether roles other than owner hold privileges on relid beyond allowed. */
static bool
grants_beyond(HeapTuple tuple, Oid owner, AclMode allowed)
{
	bool		isnull;
	Datum		acl_datum = SysCacheGetAttr(RELOID, tuple, Anum_pg_class_relacl, &isnull);
	Acl		   *acl;
	AclItem    *items;
	int			i;

	if (isnull)
		return false;			/* the default: the owner's privileges only */
	acl = DatumGetAclPCopy(acl_datum);
	items = ACL_DAT(acl);
	for (i = 0; i < ACL_NUM(acl); i++)
		if (items[i].ai_grantee != owner && (ACLITEM_GET_PRIVS(items[i]) & ~allowed) != 0)
			return true;
	return false;
}

/*
 * The release table: a plain table that runs nothing when it is written
 * (no trigger, rule or row-level security, which roles granted TRIGGER or
 * default privileges could add) and that readers may only read.
 */
static void
check_release_table(const DrawObjects *d)
{
	HeapTuple	tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(d->release));
	Form_pg_class form;

	if (!HeapTupleIsValid(tuple))
		elog(ERROR, "cache lookup failed for relation %u", d->release);
	form = (Form_pg_class) GETSTRUCT(tuple);
	if (form->relkind != RELKIND_RELATION || form->relhastriggers || form->relhasrules || form->relrowsecurity)
		refuse(d->release, "The release table has triggers, rules or row-level security, which would run at every "
			   "draw with the rights of the extension's owner.",
			   "Drop them (a release table holds draws and nothing else), then draw.");
	if (grants_beyond(tuple, d->owner, ACL_SELECT))
		refuse(d->release, "A role other than the release's owner holds privileges on its table beyond SELECT.",
			   "REVOKE them (readers need only SELECT, which dp.grant_release gives), then draw.");
	ReleaseSysCache(tuple);
}

/* A pinned view: still a view of the owner's that only the owner may read. */
static void
check_pinned_view(const DrawObjects *d, Oid view)
{
	HeapTuple	tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(view));
	Form_pg_class form;

	if (!HeapTupleIsValid(tuple))
		refuse(d->release, "Its pinned source or domain view is gone.",
			   "An administrator can pin it again with dp.pin_registered_source(release).");
	form = (Form_pg_class) GETSTRUCT(tuple);
	if (form->relkind != RELKIND_VIEW || form->relowner != d->owner || grants_beyond(tuple, d->owner, 0))
		refuse(d->release, psprintf("Its pinned view %s was changed: it must be a view of the release's owner "
									"that no other role may read (it returns the true counts).", relation_name(view)),
			   psprintf("REVOKE ALL ON %s FROM the roles granted it, then draw.", relation_name(view)));
	ReleaseSysCache(tuple);
}

/* With the owner's rights: the schemas names resolve in, every object the views use. */
static void
check_as_owner(void *arg)
{
	const DrawObjects *d = (const DrawObjects *) arg;
	int			i;

	(void) trusted_search_path(d->search_path, false);
	for (i = 0; i < 2; i++)
		if (OidIsValid(d->views[i]))
			check_governed_query(psprintf("SELECT * FROM %s", relation_name(d->views[i])));
}

Datum
dp_check_release_objects(PG_FUNCTION_ARGS)
{
	DrawObjects d;
	int			i;

	require_draw_worker("dp.check_release_objects");
	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2) || PG_ARGISNULL(3))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("release, owner, search_path and source_view must not be NULL")));
	d.release = PG_GETARG_OID(0);
	d.owner = PG_GETARG_OID(1);
	d.search_path = text_to_cstring(PG_GETARG_TEXT_PP(2));
	d.views[0] = PG_GETARG_OID(3);
	d.views[1] = PG_ARGISNULL(4) ? InvalidOid : PG_GETARG_OID(4);
	check_release_table(&d);
	for (i = 0; i < 2; i++)
		if (OidIsValid(d.views[i]))
			check_pinned_view(&d, d.views[i]);
	run_as_role(d.owner, "pg_catalog, pg_temp", check_as_owner, &d);
	PG_RETURN_VOID();
}
