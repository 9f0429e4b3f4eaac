CREATE TABLE IF NOT EXISTS "flakeid_segments" ("name" VARCHAR(191) NOT NULL, "max_id" BIGINT NOT NULL, "step" BIGINT NOT NULL, "updated_at" BIGINT NOT NULL, PRIMARY KEY ("name"));
