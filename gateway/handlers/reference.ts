/**
 * Reference operations: the extraction templates (each with its schema.org types, its fields
 * and where each is read from, and the JSON Schema its answers pass) and the source-code offer.
 */
import { TEMPLATES } from '../../schemas/templates.js';
import type { OperationHandler } from '../handler.js';

export const LICENSE_ID = 'AGPL-3.0';

export function templatesHandler(): OperationHandler {
  const templates = TEMPLATES.map((t) => ({
    name: t.name,
    description: t.description,
    // Each field with the schema.org properties it is read from (markup first) and those the
    // page rules can fill when the markup has nothing; a model fills what is left.
    fields: t.fields,
    schemaOrgTypes: t.schemaOrgTypes,
    schema: t.schema,
  }));
  const dataJson = JSON.stringify({ templates });
  return { handle: async () => ({ dataJson }) };
}

export function sourceHandler(options: { sourceUrl: string; version: string }): OperationHandler {
  const data = {
    url: options.sourceUrl,
    license: LICENSE_ID,
    licenseUrl: 'https://www.gnu.org/licenses/agpl-3.0.html',
    version: options.version,
    notice:
      'This service is free software under the GNU Affero General Public License v3.0. You may obtain the complete corresponding source of this running instance at the URL above.',
  };
  const dataJson = JSON.stringify(data);
  return { handle: async () => ({ dataJson }) };
}
