-- The store's SQL is written per dialect where the two differ (schema/database.hpp: DialectSql), so PostgreSQL no
-- longer needs SQLite's spellings defined inside it: the scalar two-value max / min, printf, total, sum over
-- booleans and the json_* functions go. Only the trigger helpers of 014 (pt_json_array, pt_now_ms) stay.
DROP FUNCTION IF EXISTS max(anycompatible, anycompatible);
DROP FUNCTION IF EXISTS min(anycompatible, anycompatible);
DROP FUNCTION IF EXISTS printf(TEXT, BIGINT);
DROP AGGREGATE IF EXISTS total(DOUBLE PRECISION);
DROP AGGREGATE IF EXISTS sum(BOOLEAN);
DROP FUNCTION IF EXISTS pt_count_true(BIGINT, BOOLEAN);
DROP FUNCTION IF EXISTS json_valid(TEXT);
DROP FUNCTION IF EXISTS json_extract(TEXT, TEXT);
DROP FUNCTION IF EXISTS json_array_length(TEXT, TEXT);
