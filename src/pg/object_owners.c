/* Trusted owners of the objects a governed release uses: see object_owners.h. */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/syscache.h"
#include "utils/typcache.h"

#include "object_owners.h"

bool
trusted_owner(Oid owner)
{
	return owner == GetUserId() || superuser_arg(owner);
}

void
refuse_untrusted_owner(const char *what, const char *name, Oid owner)
{
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("%s %s is owned by role %s", what, name, GetUserNameFromId(owner, false)),
			 errdetail("A governed release uses it later with your privileges, at every draw; its owner could "
					   "redefine it and so redirect the release or run code with your rights."),
			 errhint("Use objects owned by you or by a superuser.")));
}

static void
check_type_owners_at(Oid type, int depth)
{
	HeapTuple	tuple;
	Form_pg_type form;
	Oid			owner;
	Oid			inner[2];
	bool		composite;
	int			i;

	/* Types nest (arrays of composites of domains): deep enough for any real one. */
	if (depth > 8)
		return;
	tuple = SearchSysCache1(TYPEOID, ObjectIdGetDatum(type));
	if (!HeapTupleIsValid(tuple))
		elog(ERROR, "cache lookup failed for type %u", type);
	form = (Form_pg_type) GETSTRUCT(tuple);
	owner = form->typowner;
	inner[0] = form->typelem;
	inner[1] = form->typbasetype;
	composite = form->typtype == TYPTYPE_COMPOSITE && OidIsValid(form->typrelid);
	ReleaseSysCache(tuple);
	if (!trusted_owner(owner))
		refuse_untrusted_owner("type", format_type_be(type), owner);
	for (i = 0; i < 2; i++)
		if (OidIsValid(inner[i]))
			check_type_owners_at(inner[i], depth + 1);
	if (composite)
	{
		TupleDesc	desc = lookup_rowtype_tupdesc(type, -1);

		for (i = 0; i < desc->natts; i++)
			if (!TupleDescAttr(desc, i)->attisdropped)
				check_type_owners_at(TupleDescAttr(desc, i)->atttypid, depth + 1);
		ReleaseTupleDesc(desc);
	}
}

void
check_type_owners(Oid type)
{
	check_type_owners_at(type, 0);
}
