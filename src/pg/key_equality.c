/* Values equal under SQL: see key_equality.h. */
#include "postgres.h"

#include "access/nbtree.h"
#include "catalog/pg_am.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "fmgr.h"
#include "lib/rbtree.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/typcache.h"

#include "key_equality.h"

typedef struct ClassEntry
{
	Datum		value;			/* the first value of its class */
	uint32		hash;
	char		status;			/* simplehash's */
} ClassEntry;

/* A class in the ordered tree (a type with a btree operator class but no hash one). */
typedef struct ClassNode
{
	RBTNode		node;
	Datum		value;
} ClassNode;

struct KeyEquality
{
	FmgrInfo	hash_fn;
	FmgrInfo	equal_fn;		/* hashed: the equality of the hash operator class */
	FmgrInfo	compare_fn;		/* ordered: the btree comparison */
	Oid			collation;
	struct classes_hash *classes;	/* hashed, or */
	RBTree	   *ordered;		/* ordered */
	MemoryContext cxt;
};

static inline uint32
class_hash(struct classes_hash *table, Datum value);
static inline bool
class_equal(struct classes_hash *table, Datum a, Datum b);

#define SH_PREFIX classes
#define SH_ELEMENT_TYPE ClassEntry
#define SH_KEY_TYPE Datum
#define SH_KEY value
#define SH_HASH_KEY(table, key) class_hash(table, key)
#define SH_EQUAL(table, a, b) class_equal(table, a, b)
#define SH_STORE_HASH
#define SH_GET_HASH(table, entry) entry->hash
#define SH_SCOPE static inline
#define SH_DECLARE
#define SH_DEFINE
#include "lib/simplehash.h"

static inline uint32
class_hash(struct classes_hash *table, Datum value)
{
	KeyEquality *equality = (KeyEquality *) table->private_data;

	return DatumGetUInt32(FunctionCall1Coll(&equality->hash_fn, equality->collation, value));
}

static inline bool
class_equal(struct classes_hash *table, Datum a, Datum b)
{
	KeyEquality *equality = (KeyEquality *) table->private_data;

	return DatumGetBool(FunctionCall2Coll(&equality->equal_fn, equality->collation, a, b));
}

/*
 * Whether equal values always have equal bytes: the btree operator class's
 * "equalimage" support function says so (PostgreSQL asks it before
 * deduplicating index entries by their images). bpchar's says yes, yet
 * 'a' and 'a ' are equal: its values are compared by hash and equality.
 */
static bool
equal_values_have_equal_bytes(Oid type, Oid collation)
{
	Oid			base = getBaseType(type);
	Oid			opclass = GetDefaultOpClass(base, BTREE_AM_OID);
	Oid			input;
	Oid			equalimage;

	if (!OidIsValid(opclass) || base == BPCHAROID)
		return false;
	input = get_opclass_input_type(opclass);
	equalimage = get_opfamily_proc(get_opclass_family(opclass), input, input, BTEQUALIMAGE_PROC);
	return OidIsValid(equalimage) &&
		DatumGetBool(OidFunctionCall1Coll(equalimage, collation, ObjectIdGetDatum(input)));
}

static int
compare_classes(const RBTNode *a, const RBTNode *b, void *arg)
{
	KeyEquality *equality = (KeyEquality *) arg;

	return DatumGetInt32(FunctionCall2Coll(&equality->compare_fn, equality->collation,
										   ((const ClassNode *) a)->value, ((const ClassNode *) b)->value));
}

static RBTNode *
allocate_class(void *arg)
{
	return (RBTNode *) MemoryContextAlloc(((KeyEquality *) arg)->cxt, sizeof(ClassNode));
}

void
check_key_type_has_equality(Oid type, const char *kind, const char *name, const char *what)
{
	TypeCacheEntry *entry = lookup_type_cache(type, TYPECACHE_HASH_PROC | TYPECACHE_CMP_PROC);

	if (!OidIsValid(entry->hash_proc) && !OidIsValid(entry->cmp_proc))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FUNCTION),
				 errmsg("%s column \"%s\" of the %s has type %s, which has no equality to tell values apart", kind,
						name, what, format_type_be(type)),
				 errdetail("Values are told apart as SQL's equality tells them apart, through the type's default "
						   "hash or btree operator class."),
				 errhint("Cast the column to a type that has one, such as text.")));
}

KeyEquality *
key_equality_new(Oid type, Oid collation, const char *kind, const char *name, const char *what,
				 MemoryContext cxt)
{
	TypeCacheEntry *entry;
	KeyEquality *equality;

	if (equal_values_have_equal_bytes(type, collation))
		return NULL;
	check_key_type_has_equality(type, kind, name, what);
	entry = lookup_type_cache(type, TYPECACHE_HASH_PROC_FINFO | TYPECACHE_EQ_OPR_FINFO | TYPECACHE_CMP_PROC_FINFO);
	equality = MemoryContextAllocZero(cxt, sizeof(KeyEquality));
	equality->collation = collation;
	equality->cxt = cxt;
	if (OidIsValid(entry->hash_proc) && OidIsValid(entry->eq_opr))
	{
		fmgr_info_cxt(entry->hash_proc, &equality->hash_fn, cxt);
		fmgr_info_cxt(entry->eq_opr_finfo.fn_oid, &equality->equal_fn, cxt);
		equality->classes = classes_create(cxt, 16, equality);
	}
	else
	{
		/* As GROUP BY does for a type it cannot hash: by the btree order. */
		fmgr_info_cxt(entry->cmp_proc, &equality->compare_fn, cxt);
		equality->ordered = rbt_create(sizeof(ClassNode), compare_classes, NULL, allocate_class, NULL, equality);
	}
	return equality;
}

Datum
key_equality_find(KeyEquality *equality, Datum value, uint32 *hash, bool *found)
{
	if (equality->classes != NULL)
	{
		ClassEntry *entry;

		*hash = class_hash(equality->classes, value);
		entry = classes_lookup_hash(equality->classes, value, *hash);
		*found = entry != NULL;
		return entry != NULL ? entry->value : (Datum) 0;
	}
	else
	{
		ClassNode	probe;
		ClassNode  *node;

		probe.value = value;
		node = (ClassNode *) rbt_find(equality->ordered, &probe.node);
		*hash = 0;
		*found = node != NULL;
		return node != NULL ? node->value : (Datum) 0;
	}
}

Size
key_equality_growth(const KeyEquality *equality)
{
	const struct classes_hash *classes = equality->classes;

	if (classes == NULL)
		return sizeof(ClassNode);
	return classes->members + 1 > classes->grow_threshold ? (Size) classes->size * 2 * sizeof(ClassEntry) : 0;
}

void
key_equality_add(KeyEquality *equality, Datum kept, uint32 hash)
{
	bool		found;

	if (equality->classes != NULL)
		(void) classes_insert_hash(equality->classes, kept, hash, &found);
	else
	{
		ClassNode	node;

		node.value = kept;
		(void) rbt_insert(equality->ordered, &node.node, &found);
	}
}
