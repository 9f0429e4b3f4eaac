DROP TABLE IF EXISTS "flakeid_nodes";
