-- Pinned views return true counts: privileges that default privileges gave
-- other roles when they were created are taken back.
DO $$
DECLARE
    view regclass;
BEGIN
    FOR view IN SELECT source_view FROM dp.releases WHERE source_view IS NOT NULL
                UNION ALL SELECT domain_view FROM dp.releases WHERE domain_view IS NOT NULL LOOP
        PERFORM dp.revoke_from_all_but_owner(view);
    END LOOP;
END
$$;
