/**
 * The API spec these tests hold the code to: `../shared/spec/web-data-service-api.md` beside
 * the repository, or the file `SPEC_PATH` names (.ci/run sets it for a clone made elsewhere). A
 * fresh clone may not have it; tests that read it skip, naming the path.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const SPEC_PATH = process.env.SPEC_PATH || resolve(dirname(fileURLToPath(import.meta.url)), '../../../shared/spec/web-data-service-api.md');

/** The spec's text, or null when it is not beside the repository. */
export function readSpec(): string | null {
  return existsSync(SPEC_PATH) ? readFileSync(SPEC_PATH, 'utf8') : null;
}

/** The rows of the spec's `### Index` table, as `METHOD /path`, in its order. */
export function specIndex(text: string): string[] {
  const section = text.split(/^### Index\s*$/m)[1]?.split(/^#{1,3} /m)[0] ?? '';
  return [...section.matchAll(/^\|\s*(GET|POST|PATCH|PUT|DELETE)\s*\|\s*(\/\S+)\s*\|/gm)].map((m) => `${m[1]} ${m[2]}`);
}
