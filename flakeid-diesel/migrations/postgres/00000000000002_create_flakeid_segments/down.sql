DROP TABLE IF EXISTS "flakeid_segments";
