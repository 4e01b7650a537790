-- The large-file report reader: the first call whose time or count no column can hold.
--
-- @param most  the largest count a column holds
-- @returns rowid, bad_time, time_us, bad_count
SELECT rowid, bad_time, time_us, bad_count FROM calls
WHERE bad_time OR bad_count OR time_us < 0 OR isinf(time_us) OR isnan(time_us) OR calls_real > $most
ORDER BY rowid LIMIT 1
