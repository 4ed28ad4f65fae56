-- An upload's rows are moved from COPY's staging table in one INSERT ... SELECT (schema/postgres_result_writer.cpp),
-- and PostgreSQL checks a foreign key with a trigger per inserted row that locks the parent row (FOR KEY SHARE): for
-- a 120,000-row nightly of new models that was 2 of its 3.4 s. These two keys guard nothing the store does not
-- already: a run's rows are deleted explicitly before the run (run_delete.cpp, as on SQLite), and case groups are
-- never deleted; the writer inserts both parents in the same transaction as the rows.
ALTER TABLE result_rows DROP CONSTRAINT IF EXISTS result_rows_run_id_fkey;
ALTER TABLE case_models DROP CONSTRAINT IF EXISTS case_models_group_id_fkey;
