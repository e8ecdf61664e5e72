/* Argument unpacking shared by the SQL entry points. */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"

#include "arguments.h"

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

void
unpack_margins(FunctionCallInfo fcinfo, int arg, idp_request *request)
{
	Datum	   *elements;
	bool	   *nulls;
	int			count;
	int			i;
	char	  **margins;

	request->n_margins = 0;
	request->margins = NULL;
	if (PG_ARGISNULL(arg))
		return;
	deconstruct_array(PG_GETARG_ARRAYTYPE_P(arg), TEXTOID, -1, false, TYPALIGN_INT,
					  &elements, &nulls, &count);
	margins = palloc(sizeof(char *) * Max(count, 1));
	for (i = 0; i < count; i++)
	{
		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("margins must not contain NULL"),
					 errhint("Use '' for the grand total.")));
		margins[i] = TextDatumGetCString(elements[i]);
	}
	request->n_margins = count;
	request->margins = (const char *const *) margins;
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
		default:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("option \"%s\" must be a string, number or boolean", key)));
	}
	return NULL;
}

void
unpack_options(FunctionCallInfo fcinfo, int arg, idp_request *request)
{
	Jsonb	   *options;
	JsonbIterator *it;
	JsonbValue	value;
	JsonbIteratorToken token;
	char	  **keys;
	char	  **values;
	int			capacity;
	int			n = 0;
	char	   *key = NULL;

	request->n_options = 0;
	if (PG_ARGISNULL(arg))
		return;
	options = PG_GETARG_JSONB_P(arg);
	if (!JB_ROOT_IS_OBJECT(options))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("options must be a JSON object"),
				 errhint("For example options => '{\"stddev\": true}'.")));
	capacity = Max(JB_ROOT_COUNT(options), 1);
	keys = palloc(sizeof(char *) * capacity);
	values = palloc(sizeof(char *) * capacity);
	it = JsonbIteratorInit(&options->root);
	while ((token = JsonbIteratorNext(&it, &value, true)) != WJB_DONE)
	{
		if (token == WJB_KEY)
			key = pnstrdup(value.val.string.val, value.val.string.len);
		else if (token == WJB_VALUE)
		{
			keys[n] = key;
			values[n] = scalar_text(&value, key);
			n++;
		}
	}
	request->n_options = n;
	request->option_keys = (const char *const *) keys;
	request->option_values = (const char *const *) values;
}
