-- Nothing changes on SQLite: version 18 drops the SQLite functions that PostgreSQL's schema had defined for the
-- store's SQL (migrations/postgres/018_native_sql.sql), which now has its own text where the dialects differ. The
-- number keeps the two schemas at the same version (perftriage migrate copies between equal versions).
SELECT 1;
