-- The 2 x 23 sex-by-age table of Gong & Meng (2020), Table 1 top
-- (arXiv:2008.10202, section 4): one row per person. voting marks ages 18 and over, so
-- the margins {sex} and {voting} (with the grand total they imply) are the
-- paper's invariants: total 256, female 130, voting age 213.
CREATE TABLE sex_by_age_persons (sex text NOT NULL, age_band int NOT NULL, age text NOT NULL, voting boolean NOT NULL);
INSERT INTO sex_by_age_persons
SELECT sex, band, label, band >= 5
FROM (SELECT sex, band, label, n
      FROM unnest(ARRAY['<5','6-10','11-15','16-17','18-19','20','21','22-24','25-29','30-34','35-39','40-44',
                        '45-49','50-54','55-59','60-61','62-64','65-66','67-69','70-74','75-79','80-84','85+'])
               WITH ORDINALITY AS a(label, band),
           LATERAL (VALUES ('F', (ARRAY[8,6,3,6,4,4,4,8,5,7,7,6,1,5,4,4,9,6,2,8,8,8,7])[band]),
                           ('M', (ARRAY[3,4,5,8,6,4,5,5,5,6,10,7,3,2,5,11,6,4,7,4,5,3,8])[band])) AS c(sex, n)) cells,
     generate_series(1, n) AS person(person)
ORDER BY 1, 2;
