-- The arguments of a release request, each declared once (name, type,
-- default), in dp.privatize's order. Not a script: scripts/build-sql writes
-- them into every signature that takes a request (dp.privatize,
-- dp.check_request, dp.diagnose in 10_privatize.sql, dp.register_release
-- and dp.check_release_registration in 60_governed_admin.sql,
-- dp.privatize_as_owner in 70_governed_draws.sql, all in src/sql/extension/).
-- There a line
--     @request_arguments(epsilon, mechanism, delta),
-- becomes the declarations of those arguments, in its order, each with its
-- default where PostgreSQL allows one: on the run of arguments at its end
-- that all have one. @request_arguments_without_defaults(...) writes none.
-- Those functions are named without their argument types in COMMENT and
-- REVOKE (each name is unique in schema dp), so a new argument is declared
-- here and named in the lists of the functions that take it (and, as any
-- change of a signature, an upgrade step drops the old one:
-- src/sql/upgrades/).
source       text
epsilon      float8
mechanism    text   DEFAULT 'integer_laplace'
delta        float8 DEFAULT NULL
margins      text[] DEFAULT '{}'
domain       text   DEFAULT NULL
options      jsonb  DEFAULT '{}'
hierarchy    text[] DEFAULT NULL
privacy_unit text   DEFAULT NULL
bounds       jsonb  DEFAULT NULL
