-- Nothing changes on SQLite: this version exists for PostgreSQL's (postgres/016_bulk_rows.sql), which drops the
-- foreign keys of result_rows.run_id and case_models.group_id. SQLite checks such a key with one lookup of the
-- parent's rowid, at no cost worth a table rebuild; the numbers stay aligned so that `migrate` copies one version.
SELECT 1;
