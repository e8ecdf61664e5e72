-- 0.4.0 made governed releases hold under attack: sources pinned as views,
-- draws in a background worker that charges before anyone reads, restores
-- recognised by the release table's oid, finite budgets.
ALTER TABLE IF EXISTS dp.releases ADD COLUMN IF NOT EXISTS source_view regclass,
                                  ADD COLUMN IF NOT EXISTS domain_view regclass,
                                  ADD COLUMN IF NOT EXISTS table_oid oid;

-- A NaN budget compared above every number and was never exhausted: such a
-- budget (only an attack could have stored one) is closed, with a warning,
-- before budgets must be finite.
DO $$
BEGIN
    IF to_regclass('dp.budgets') IS NULL THEN
        RETURN;
    END IF;
    IF EXISTS (SELECT FROM dp.budgets WHERE NOT (epsilon_total < 'Infinity')) THEN
        RAISE WARNING 'closing budgets with a non-finite epsilon: %',
            (SELECT string_agg(dataset, ', ') FROM dp.budgets WHERE NOT (epsilon_total < 'Infinity'));
        UPDATE dp.budgets SET epsilon_total = epsilon_spent + 0 WHERE NOT (epsilon_total < 'Infinity');
        UPDATE dp.budgets SET epsilon_total = 1e-300 WHERE epsilon_total = 0;
    END IF;
    ALTER TABLE dp.budgets ADD CONSTRAINT budget_finite
        CHECK (epsilon_total < 'Infinity' AND epsilon_spent < 'Infinity' AND delta_spent < 'Infinity');
END
$$;
