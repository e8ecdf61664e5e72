-- After the current definitions: every release registered before 0.4.0 is
-- pinned now. One that no longer passes the checks stays unpinned, with a
-- warning, and refuses to draw.
DO $$
DECLARE
    r record;
BEGIN
    FOR r IN SELECT release FROM dp.releases WHERE source_view IS NULL ORDER BY release LOOP
        BEGIN
            PERFORM dp.pin_registered_source(r.release);
            -- Views made by an extension script would belong to the extension
            -- (not dumped); a pinned source belongs to its release.
            EXECUTE (SELECT string_agg(format('ALTER EXTENSION invariant_dp DROP VIEW %s', v), '; ')
                     FROM (SELECT source_view AS v FROM dp.releases WHERE release = r.release
                           UNION ALL SELECT domain_view FROM dp.releases
                           WHERE release = r.release AND domain_view IS NOT NULL) p);
        EXCEPTION WHEN OTHERS THEN
            RAISE WARNING 'the source of governed release % could not be pinned: %', r.release, SQLERRM
                USING HINT = 'It refuses to draw until it is dropped and registered again.';
        END;
    END LOOP;
END
$$;
