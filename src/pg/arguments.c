/* Argument unpacking shared by the SQL entry points. */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"

#include "arguments.h"

/* Whether argument arg exists (declared by this version) and is not NULL. */
static bool
given(FunctionCallInfo fcinfo, int arg)
{
	return arg >= 0 && arg < PG_NARGS() && !PG_ARGISNULL(arg);
}

char *
required_text(FunctionCallInfo fcinfo, int arg, const char *name)
{
	if (PG_ARGISNULL(arg))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s must not be NULL", name)));
	return text_to_cstring(PG_GETARG_TEXT_PP(arg));
}

double
required_float8(FunctionCallInfo fcinfo, int arg, const char *name)
{
	if (PG_ARGISNULL(arg))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s must not be NULL", name)));
	return PG_GETARG_FLOAT8(arg);
}

/* A text[] argument as C strings; NULL elements are refused, naming it. */
static int
text_array(FunctionCallInfo fcinfo, int arg, const char *name, const char *null_hint, char ***strings)
{
	Datum	   *elements;
	bool	   *nulls;
	int			count;
	int			i;

	*strings = NULL;
	if (!given(fcinfo, arg))
		return 0;
	deconstruct_array(PG_GETARG_ARRAYTYPE_P(arg), TEXTOID, -1, false, TYPALIGN_INT,
					  &elements, &nulls, &count);
	*strings = palloc(sizeof(char *) * Max(count, 1));
	for (i = 0; i < count; i++)
	{
		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("%s must not contain NULL", name),
					 null_hint ? errhint("%s", null_hint) : 0));
		(*strings)[i] = TextDatumGetCString(elements[i]);
	}
	return count;
}


static char *
scalar_text(const JsonbValue *value, const char *key)
{
	switch (value->type)
	{
		case jbvString:
			return pnstrdup(value->val.string.val, value->val.string.len);
		case jbvBool:
			return pstrdup(value->val.boolean ? "true" : "false");
		case jbvNumeric:
			return DatumGetCString(DirectFunctionCall1(numeric_out, NumericGetDatum(value->val.numeric)));
		case jbvNull:
			return pstrdup("null");
		case jbvBinary:
			/* an array or object, e.g. level_variance: its JSON text */
			return JsonbToCString(NULL, value->val.binary.data, value->val.binary.len);
		default:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("\"%s\" must be a string, number, boolean, array or object", key)));
	}
	return NULL;
}

/* A jsonb value's type as the core's options catalogue reads it. */
static char
json_type_code(const JsonbValue *value)
{
	switch (value->type)
	{
		case jbvString:
			return 's';
		case jbvNumeric:
			return 'n';
		case jbvBool:
			return 'b';
		case jbvNull:
			return 'z';
		case jbvBinary:
			return JsonContainerIsArray(value->val.binary.data) ? 'a' : 'o';
		default:
			return '?';
	}
}

/*
 * A jsonb object argument (options, bounds): its members as key/value text
 * pairs, scalars as text, arrays and objects as JSON text, and (when
 * out_types is given) each member's JSON type, so that "0.9" is not 0.9.
 */
static size_t
unpack_object(FunctionCallInfo fcinfo, int arg, const char *name, const char *example,
			  const char *const **out_keys, const char *const **out_values, const char **out_types)
{
	Jsonb	   *object;
	JsonbIterator *it;
	JsonbValue	value;
	JsonbIteratorToken token;
	char	  **keys;
	char	  **values;
	char	   *types;
	int			capacity;
	size_t		n = 0;
	char	   *key = NULL;

	*out_keys = NULL;
	*out_values = NULL;
	if (out_types)
		*out_types = NULL;
	if (!given(fcinfo, arg))
		return 0;
	object = PG_GETARG_JSONB_P(arg);
	if (!JB_ROOT_IS_OBJECT(object))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be a JSON object", name),
				 errhint("For example %s => '%s'.", name, example)));
	capacity = Max(JB_ROOT_COUNT(object), 1);
	keys = palloc(sizeof(char *) * capacity);
	values = palloc(sizeof(char *) * capacity);
	types = palloc(capacity + 1);
	it = JsonbIteratorInit(&object->root);
	while ((token = JsonbIteratorNext(&it, &value, true)) != WJB_DONE)
	{
		if (token == WJB_KEY)
			key = pnstrdup(value.val.string.val, value.val.string.len);
		else if (token == WJB_VALUE)
		{
			keys[n] = key;
			values[n] = scalar_text(&value, key);
			types[n] = json_type_code(&value);
			n++;
		}
	}
	*out_keys = (const char *const *) keys;
	*out_values = (const char *const *) values;
	types[n] = '\0';
	if (out_types)
		*out_types = types;
	return n;
}

void
unpack_request(FunctionCallInfo fcinfo, const RequestArguments *at, idp_request *request)
{
	char	  **margins;
	char	  **levels;

	memset(request, 0, sizeof *request);
	request->mechanism = required_text(fcinfo, at->mechanism, "mechanism");
	request->epsilon_is_null = !given(fcinfo, at->epsilon);
	request->epsilon = request->epsilon_is_null ? 0 : PG_GETARG_FLOAT8(at->epsilon);
	request->has_delta = given(fcinfo, at->delta);
	request->delta = request->has_delta ? PG_GETARG_FLOAT8(at->delta) : 0;
	request->n_margins = text_array(fcinfo, at->margins, "margins", "Use '' for the grand total.", &margins);
	request->margins = (const char *const *) margins;
	request->n_options = unpack_object(fcinfo, at->options, "options", "{\"stddev\": true}",
									   &request->option_keys, &request->option_values, &request->option_types);
	request->n_hierarchy = text_array(fcinfo, at->hierarchy, "hierarchy", NULL, &levels);
	request->hierarchy = (const char *const *) levels;
	/* The unit column and its bounds; the core refuses one without the other. */
	request->privacy_unit = given(fcinfo, at->privacy_unit) ? text_to_cstring(PG_GETARG_TEXT_PP(at->privacy_unit)) : NULL;
	request->has_bounds = unpack_bounds(fcinfo, at->bounds, &request->n_bounds, &request->bound_keys,
										&request->bound_values);
}

bool
unpack_bounds(FunctionCallInfo fcinfo, int arg, size_t *n, const char *const **keys, const char *const **values)
{
	*n = unpack_object(fcinfo, arg, "bounds", "{\"max_groups_per_unit\": 3, \"max_rows_per_group\": 1}",
					   keys, values, NULL);
	return given(fcinfo, arg);
}
