/*
 * Keys and privacy units are told apart as SQL tells values apart: by the
 * type's default equality and the column's collation, not by their bytes.
 * For most types (integers, dates, text under a deterministic collation:
 * the types whose btree operator class says equal values have equal
 * images) bytes suffice and nothing is done. For the others (numeric 1.0
 * and 1.00, float8 0 and -0, interval '1 day' and '24 hours', citext, a
 * case-insensitive collation, arrays and records of such values) each value
 * is replaced by the first value of its class seen, found through the
 * type's hash function and equality, or its btree order for a type that
 * has no hash operator class (tsquery), as GROUP BY does: one person
 * written several ways is one unit, and one key one cell.
 */
#ifndef INVARIANT_DP_KEY_EQUALITY_H
#define INVARIANT_DP_KEY_EQUALITY_H

#include "postgres.h"

typedef struct KeyEquality KeyEquality;

/*
 * NULL when equal values of type under collation always have equal bytes;
 * otherwise the classes of one column, kept in cxt. A type with neither a
 * hash nor a btree operator class (point, json) is refused (42883), naming
 * the column: kind is "key" or "privacy unit", what "source" or "domain".
 */
/* Refuses (42883) a type with neither a hash nor a btree operator class, as key_equality_new does. */
extern void check_key_type_has_equality(Oid type, const char *kind, const char *name, const char *what);

extern KeyEquality *key_equality_new(Oid type, Oid collation, const char *kind, const char *name,
									 const char *what, MemoryContext cxt);

/*
 * The first value seen equal to value, or 0 with *found false: the caller
 * then keeps a copy that outlives the read and adds it (key_equality_add,
 * with the same hash).
 */
extern Datum key_equality_find(KeyEquality *equality, Datum value, uint32 *hash, bool *found);

/* Bytes that adding one more class allocates now (0: none), to be counted first. */
extern Size key_equality_growth(const KeyEquality *equality);

extern void key_equality_add(KeyEquality *equality, Datum kept, uint32 hash);

#endif
