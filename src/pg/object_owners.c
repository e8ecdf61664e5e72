/* Trusted owners of the objects a governed release uses: see object_owners.h. */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/namespace.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_database.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/syscache.h"
#include "utils/typcache.h"
#include "utils/varlena.h"

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

/* pg_database_owner stands for the current database's owner. */
static Oid
effective_role(Oid role)
{
	HeapTuple	tuple;
	Oid			owner;

	if (role != ROLE_PG_DATABASE_OWNER)
		return role;
	tuple = SearchSysCache1(DATABASEOID, ObjectIdGetDatum(MyDatabaseId));
	if (!HeapTupleIsValid(tuple))
		elog(ERROR, "cache lookup failed for database %u", MyDatabaseId);
	owner = ((Form_pg_database) GETSTRUCT(tuple))->datdba;
	ReleaseSysCache(tuple);
	return owner;
}

bool
trusted_schema(Oid namespace, Oid *untrusted_role)
{
	HeapTuple	tuple = SearchSysCache1(NAMESPACEOID, ObjectIdGetDatum(namespace));
	Form_pg_namespace form;
	Datum		acl_datum;
	bool		isnull;
	Oid			owner;
	bool		trusted = true;

	if (!HeapTupleIsValid(tuple))
		return true;			/* dropped meanwhile: nothing resolves there */
	form = (Form_pg_namespace) GETSTRUCT(tuple);
	owner = effective_role(form->nspowner);
	*untrusted_role = owner;
	if (!trusted_owner(owner))
		trusted = false;
	acl_datum = SysCacheGetAttr(NAMESPACEOID, tuple, Anum_pg_namespace_nspacl, &isnull);
	if (trusted && !isnull)
	{
		Acl		   *acl = DatumGetAclPCopy(acl_datum);
		AclItem    *items = ACL_DAT(acl);
		int			i;

		for (i = 0; i < ACL_NUM(acl) && trusted; i++)
		{
			Oid			grantee = items[i].ai_grantee;

			if ((ACLITEM_GET_PRIVS(items[i]) & ACL_CREATE) == 0)
				continue;
			*untrusted_role = grantee;
			if (grantee == ACL_ID_PUBLIC || !trusted_owner(effective_role(grantee)))
				trusted = false;
		}
	}
	ReleaseSysCache(tuple);
	return trusted;
}

char *
trusted_search_path(const char *search_path, bool report)
{
	char	   *copy = pstrdup(search_path);
	List	   *names;
	ListCell   *cell;
	StringInfoData kept;

	if (!SplitIdentifierString(copy, ',', &names))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid search_path \"%s\"", search_path)));
	initStringInfo(&kept);
	foreach(cell, names)
	{
		const char *name = (const char *) lfirst(cell);
		Oid			namespace = get_namespace_oid(name, true);
		Oid			role;

		if (strcmp(name, "pg_temp") != 0 && strcmp(name, "pg_catalog") != 0 && OidIsValid(namespace) &&
			!trusted_schema(namespace, &role))
		{
			const char *who = role == ACL_ID_PUBLIC ? "PUBLIC" : GetUserNameFromId(role, false);

			if (!report)
				ereport(ERROR,
						(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
						 errmsg("schema %s of the release's search_path is not trusted", quote_identifier(name)),
						 errdetail("Role %s owns it or may create objects in it; functions the source calls "
								   "resolve names there at every draw, so %s could redirect them.", who, who),
						 errhint("REVOKE CREATE ON SCHEMA %s FROM %s, or register the release again.",
								 quote_identifier(name), who)));
			ereport(NOTICE,
					(errmsg("schema %s is left out of the release's search_path", quote_identifier(name)),
					 errdetail("Role %s owns it or may create objects in it; functions the source calls "
							   "resolve names only in schemas no other role can write.", who)));
			continue;
		}
		appendStringInfo(&kept, "%s%s", kept.len ? ", " : "", quote_identifier(name));
	}
	return kept.data;
}

PG_FUNCTION_INFO_V1(dp_trusted_search_path);

/* dp.trusted_search_path(search_path): at registration, with NOTICEs. */
Datum
dp_trusted_search_path(PG_FUNCTION_ARGS)
{
	PG_RETURN_TEXT_P(cstring_to_text(trusted_search_path(text_to_cstring(PG_GETARG_TEXT_PP(0)), true)));
}
