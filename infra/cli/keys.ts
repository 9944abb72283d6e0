/**
 * `npm run keys -- <command>`: the key commands (cli/keys.ts, also `web-data-service keys`)
 * as their own entry point, which starts nothing else.
 */
import { keysMain } from '../../cli/keys.js';

await keysMain(process.argv.slice(2));
