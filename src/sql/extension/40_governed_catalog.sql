-- The catalog of governed releases: budgets, releases, who may refresh
-- them, the audit log of draws (a stream's own state is in
-- 65_governed_streams.sql), and which releases a role may know of. Budgets are numeric:
-- 0.1 spent ten times is exactly 1, so a budget of 1 allows exactly ten
-- draws of 0.1 (float8 would round either way). Nothing here is readable by
-- PUBLIC: roles reach it through the functions and the security-barrier
-- views built on dp.visible_releases (below, 65_governed_streams.sql,
-- 80_governed_costs.sql). Columns are listed in the order the
-- upgrades of src/sql/upgrades/ add them, so that a fresh install and an
-- upgraded one have the same tables.

CREATE TABLE IF NOT EXISTS dp.budgets (
    dataset       text PRIMARY KEY,
    epsilon_total numeric NOT NULL CHECK (epsilon_total > 0),
    delta_total   numeric NOT NULL DEFAULT 0 CHECK (delta_total >= 0 AND delta_total < 1),
    epsilon_spent numeric NOT NULL DEFAULT 0 CHECK (epsilon_spent >= 0),
    delta_spent   numeric NOT NULL DEFAULT 0 CHECK (delta_spent >= 0),
    created_by    name NOT NULL DEFAULT current_user,
    created_at    timestamptz NOT NULL DEFAULT now(),
    -- The last line of defence: no code path can commit an overspent budget.
    CONSTRAINT budget_not_overspent CHECK (epsilon_spent <= epsilon_total AND delta_spent <= delta_total),
    -- numeric has NaN and Infinity; NaN compares above every number.
    CONSTRAINT budget_finite
        CHECK (epsilon_total < 'Infinity' AND epsilon_spent < 'Infinity' AND delta_spent < 'Infinity')
);

COMMENT ON TABLE dp.budgets IS
'Total privacy budget of each dataset and what its draws have spent (basic composition: epsilons add, deltas add).';

-- Each registration's identity: a release dropped and registered again under
-- the same name, or a release table renamed, is told apart by it, not by
-- its name (the audit log keeps names, which are reused).
CREATE SEQUENCE IF NOT EXISTS dp.release_ids;

CREATE TABLE IF NOT EXISTS dp.releases (
    release       regclass PRIMARY KEY,
    dataset       text NOT NULL REFERENCES dp.budgets ON UPDATE CASCADE,
    owner         regrole NOT NULL,
    search_path   text NOT NULL,
    source        text NOT NULL,
    mechanism     text NOT NULL,
    epsilon       float8 NOT NULL,
    delta         float8,
    margins       text[] NOT NULL DEFAULT '{}',
    domain        text,
    options       jsonb NOT NULL DEFAULT '{}',
    registered_at timestamptz NOT NULL DEFAULT now(),
    hierarchy     text[],
    source_view   regclass,
    domain_view   regclass,
    table_oid     oid,
    privacy_unit  text,
    bounds        jsonb,
    release_id    bigint NOT NULL UNIQUE DEFAULT pg_catalog.nextval('dp.release_ids')
);

COMMENT ON TABLE dp.releases IS
'Governed releases: the table that holds each release''s current draw, the source it is drawn from '
'(run with the privileges and search_path of owner, the role that registered it), the mechanism and the '
'cost of one draw.';
COMMENT ON COLUMN dp.releases.search_path IS
'The schemas the registering role''s search_path resolved to then, pg_temp last: where functions the source calls '
'resolve names at each draw.';
COMMENT ON COLUMN dp.releases.source_view IS 'The source, pinned as a view in schema dp when registered; draws read it.';
COMMENT ON COLUMN dp.releases.domain_view IS 'The domain query, pinned like the source (NULL: none).';
COMMENT ON COLUMN dp.releases.privacy_unit IS
'The source''s column naming each row''s privacy unit (NULL: one row per person, the source returns counts).';
COMMENT ON COLUMN dp.releases.bounds IS
'The contribution bounds of each unit, {"max_groups_per_unit": G, "max_rows_per_group": R}, with privacy_unit.';
COMMENT ON COLUMN dp.releases.release_id IS
'This registration''s identity: its draws in dp.draws carry it, so a release registered again under a dropped '
'one''s name starts without its laws, and a renamed release table keeps its own.';
COMMENT ON COLUMN dp.releases.table_oid IS
'The release table''s oid at its last draw: a restore recreates the table, and the next dp.draw returns the '
'restored draw instead of drawing.';

-- Who may spend a release's budget: its owner, superusers, and the roles an
-- administrator names per release (EXECUTE on the functions alone is not enough).
CREATE TABLE IF NOT EXISTS dp.refreshers (
    release   regclass NOT NULL REFERENCES dp.releases ON DELETE CASCADE,
    refresher regrole NOT NULL,
    PRIMARY KEY (release, refresher)
);

COMMENT ON TABLE dp.refreshers IS 'Roles allowed to draw (and so spend the budget of) each governed release.';

-- Audit rows keep the release's name after it is dropped or restored
-- elsewhere (a regclass would print a bare oid).
CREATE TABLE IF NOT EXISTS dp.draws (
    draw_id     bigserial PRIMARY KEY,
    release     text NOT NULL,
    dataset     text NOT NULL,
    drawn_by    name NOT NULL,
    drawn_at    timestamptz NOT NULL DEFAULT clock_timestamp(),
    mechanism   text NOT NULL,
    epsilon     float8 NOT NULL,
    delta       float8,
    margins     text[] NOT NULL,
    options     jsonb NOT NULL,
    noise_law   jsonb NOT NULL,
    cells       bigint NOT NULL,
    drawn_as    name,
    note        text,
    release_id  bigint
);

COMMENT ON TABLE dp.draws IS
'Audit log: one row per draw of a governed release (who, when, mechanism, epsilon, delta, invariants, '
'and the noise law published with it).';
COMMENT ON COLUMN dp.draws.drawn_by IS 'The session user.';
COMMENT ON COLUMN dp.draws.drawn_as IS 'The role in effect (SET ROLE), or the session user.';
COMMENT ON COLUMN dp.draws.release_id IS
'The registration drawn (dp.releases.release_id); NULL for draws of releases dropped before 0.7.0.';
COMMENT ON COLUMN dp.draws.note IS 'Why a draw costs what it costs, when that is not its release''s epsilon and delta.';

-- pg_dump keeps the rows of the catalog (CREATE EXTENSION recreates the
-- tables).
SELECT pg_catalog.pg_extension_config_dump('dp.budgets', '');
SELECT pg_catalog.pg_extension_config_dump('dp.releases', '');
SELECT pg_catalog.pg_extension_config_dump('dp.refreshers', '');
SELECT pg_catalog.pg_extension_config_dump('dp.draws', '');
SELECT pg_catalog.pg_extension_config_dump('dp.draws_draw_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('dp.release_ids', '');

REVOKE ALL ON dp.budgets, dp.releases, dp.refreshers, dp.draws FROM PUBLIC;

-- The releases the current role may know about: its own (as a member of the
-- owner), those it may read, those it may refresh. A view, so current_user
-- is the querying role while the catalog is read with the view owner's rights.
CREATE OR REPLACE VIEW dp.visible_releases WITH (security_barrier) AS
SELECT r.release
FROM dp.releases r
WHERE pg_has_role(r.owner, 'MEMBER')
   OR has_table_privilege(r.release, 'SELECT')
   OR EXISTS (SELECT FROM dp.refreshers f WHERE f.release = r.release AND pg_has_role(f.refresher, 'MEMBER'));

COMMENT ON VIEW dp.visible_releases IS
'Internal: the governed releases the current role owns, may read or may refresh.';
