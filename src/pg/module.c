/* The extension's module: magic block and load-time set-up. */
#include "postgres.h"

#include "fmgr.h"

#include "gucs.h"
#include "privatize_scan.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

void
_PG_init(void)
{
	define_gucs();
	register_privatize_scan();
}
