# PGXS build of the invariant_dp extension. The C++ core is built by CMake
# (CMakeLists.txt) into a static library that the C shim links.

EXTENSION = invariant_dp
MODULE_big = invariant_dp
EXTVERSION = $(shell sed -n "s/^default_version = '\(.*\)'/\1/p" invariant_dp.control)

# The extension's SQL scripts are built (scripts/build-sql) from the one
# source of the current definitions, src/sql/extension/*.sql, and the catalog
# changes of each past version, src/sql/upgrades/: the install script, and an
# upgrade script from every past version straight to this one.
PAST_VERSIONS = $(shell scripts/build-sql versions)
DATA_built = build/sql/invariant_dp--$(EXTVERSION).sql \
             $(foreach from,$(PAST_VERSIONS),build/sql/invariant_dp--$(from)--$(EXTVERSION).sql)
SQL_SOURCES = invariant_dp.control scripts/build-sql src/sql/request_arguments.sql $(wildcard src/sql/extension/*.sql src/sql/upgrades/*.sql)
OBJS = src/pg/module.o src/pg/gucs.o src/pg/core_bridge.o src/pg/arguments.o \
       src/pg/source_reader.o src/pg/query_rows.o src/pg/source_checks.o src/pg/source_memory.o src/pg/source_keys.o src/pg/source_receiver.o src/pg/privatize.o src/pg/privatize_scan.o src/pg/last_release.o src/pg/noisy_count.o \
       src/pg/total_preserving.o src/pg/diagnose.o \
       src/pg/check_request.o src/pg/source_relations.o src/pg/range_variance.o \
       src/pg/run_as.o src/pg/stream_append.o src/pg/stream_parameters.o src/pg/draw_worker.o src/pg/draw_launcher.o src/pg/draw_functions.o src/pg/column_list.o src/pg/object_owners.o src/pg/draw_checks.o src/pg/worker_settings.o src/pg/key_equality.o \
       src/pg/margin_of_error.o src/pg/release_law.o src/pg/release_table.o src/pg/cancellable_sort.o

# pg_regress suites: sql/<name>.sql against expected/<name>.out.
REGRESS = setup privatize_margins privatize_types privatize_errors noisy_count integer_laplace diagnose governance hierarchy hierarchy_crossed integer_cascade nonnegative_cascade nonnegative_cascade_audit stream stream_privacy_unit conditioning_projection security privacy_unit privatize_scan bounds sql_equality total_preserving_count check_request margin_of_error cell_intervals error_bar_coverage sum_coverage source_rows partition_selection
REGRESS_OPTS = --inputdir=.

# CORE_SRC: the tree the core is built from (another checkout's, to link
# the shim against a known core).
CORE_SRC ?= .
CORE_BUILD ?= build/core
CORE_LIB = $(CORE_BUILD)/libinvariant_dp_core.a
SHLIB_LINK += $(CORE_LIB) -lClp -lCoinUtils -lflint -lmpfr -lgmp -lcrypto -lstdc++ -lm \
              -Wl,--version-script=$(CORE_SRC)/src/pg/exports.map
PG_CFLAGS += -Wall -Wmissing-prototypes
# The library refuses governed draws with SQL objects of another version.
PG_CPPFLAGS += -DINVARIANT_DP_VERSION='"$(EXTVERSION)"'

# Debian's server is built with LLVM: do not build JIT bitcode (needs clang).
override with_llvm = no

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

$(CORE_LIB): FORCE
	cmake -S $(CORE_SRC) -B $(CORE_BUILD) -DCMAKE_BUILD_TYPE=Release -DINVARIANT_DP_TESTS=OFF > /dev/null
	+cmake --build $(CORE_BUILD) --target invariant_dp_core

$(shlib): $(CORE_LIB)

.PHONY: FORCE
FORCE:

# PGXS tracks no header dependencies: rebuild the shim when the C boundary
# or a shim header changes (a stale struct layout would crash the backend).
$(OBJS): src/core/capi/invariant_dp_core.h src/core/capi/invariant_dp_stream.h src/core/capi/invariant_dp_accuracy.h \
         $(wildcard src/pg/*.h)

# A script scripts/build-sql stopped writing (a name src/sql/request_arguments.sql
# does not declare, a broken chain of upgrades) is removed, not installed next time.
.DELETE_ON_ERROR:

build/sql/invariant_dp--$(EXTVERSION).sql: $(SQL_SOURCES)
	@mkdir -p build/sql
	scripts/build-sql install > $@

build/sql/invariant_dp--%--$(EXTVERSION).sql: $(SQL_SOURCES)
	@mkdir -p build/sql
	scripts/build-sql upgrade $* > $@

# The upgrade suite needs the scripts of earlier releases in the server's
# extension directory (test/upgrade/install-released-scripts puts them
# there, as root): each old version is installed, filled, updated and
# compared with a fresh install.
.PHONY: upgradecheck
upgradecheck:
	$(pg_regress_installcheck) $(REGRESS_OPTS) setup upgrade
