-- 0016_merge_parts: how many parts one background merge of `pages` and `job_pages` reads.
--
-- Their parts are small (the batch writer inserts every 20 ms; a part of 50-400 rows of
-- 10-20 KB is one or a few 1 MiB granules, see 0003_merge_memory), and a merge holds a granule
-- of every part it reads at once: at the engine's default of up to 100 parts, one merge of
-- `pages` held 34-58 MB (3,300-4,000 rows from ~40-50 parts), the largest transient of a crawl's
-- resident memory. At 10 parts a merge held 22-30 MB in the same crawl, and the engine's
-- merge threads spent no more CPU a page (bench/README.md, "What a crawl keeps paged in").
ALTER TABLE pages MODIFY SETTING max_parts_to_merge_at_once = 10;
ALTER TABLE job_pages MODIFY SETTING max_parts_to_merge_at_once = 10;
