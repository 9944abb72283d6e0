/**
 * main.ts's command line with the test actors (test/helpers/test-actors.ts) in the build:
 *
 *   node --import tsx test/helpers/service-main.ts [--role gateway|fetcher|parser|…]
 *
 * Same configuration (the environment), same output ("listening on …" for gateway roles,
 * "<role> pool running" otherwise), same fatal line and exit code when start-up fails.
 */
import { run } from '../../main.js';
import { TEST_ACTORS } from './test-actors.js';

await run(process.argv.slice(2), { actors: TEST_ACTORS });
