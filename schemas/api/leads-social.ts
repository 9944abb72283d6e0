/** Request schemas of Find Leads and the social catalog. Both bodies are open objects in the spec. */
import { Type } from '@sinclair/typebox';
import { COUNTRY_CODE } from './common.js';
import { op, type Operation } from './operation-row.js';

export const LeadsBody = Type.Object(
  {
    query: Type.String({ minLength: 1, maxLength: 500, description: 'What kind of business to find, e.g. `dentists`.' }),
    where: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'A place, e.g. `Lyon, France`.' })),
    country: Type.Optional(COUNTRY_CODE),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100, description: 'Most leads found; each lead is charged.' })),
    sources: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { uniqueItems: true, maxItems: 100, description: 'Source keys from GET /v1/leads/sources (default: all for the country).' })),
    contacts: Type.Optional(Type.Boolean({ default: true, description: "Look up each lead's contacts." })),
  },
  { additionalProperties: true, description: 'Start a Find Leads run (an open object, as the spec declares it).' },
);

export const LeadsSourcesQuery = Type.Object({
  country: Type.Optional(COUNTRY_CODE),
  where: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'A place; its country is used.' })),
});

export const SocialBody = Type.Object({}, { additionalProperties: true, description: "The endpoint's inputs, as listed by GET /v1/social." });

/** The leads and social operations: their rows of the operation table (schemas/api/operations.ts). */
export const LEADS_SOCIAL_OPERATIONS = [
  op({
    id: 'leadsStart',
    method: 'POST',
    path: '/v1/leads',
    tag: 'Leads',
    summary: 'Start a Find Leads run',
    body: LeadsBody,
    description:
      'Starts a run that finds businesses of the kind `query` names in `where` (or `country`): OpenStreetMap everywhere and each open business register this instance is configured with for the country (GET /v1/leads/sources), asked at once; a business several sources found is one lead, its `name`, `address`, `phone` and `website` each from the source named in `fieldSources`; with `contacts` each lead\'s website is read for e-mails, phones, contact forms and social links. ' +
      'The answer is `{id, url, status: "queued"}` at once; poll GET /v1/leads/{job_id}. Fields the body does not document are accepted and named in `warning`. `where` or `country` is required; a `sources` key this instance does not offer is a 422. ' +
      'Costs 1 credit per lead delivered (rule 10), contacts included: `limit` leads are reserved, so a key that cannot cover them is refused 402 before the run exists; a cancelled run pays for the leads it had.',
  }),
  op({
    id: 'leadsSources',
    method: 'GET',
    path: '/v1/leads/sources',
    tag: 'Leads',
    summary: 'Sources a leads search covers for a country (free)',
    query: LeadsSourcesQuery,
    pricing: 'free',
    description:
      'The sources a run covers for `country`, or for the country of the place `where` names (resolved with Nominatim): `{country, sources: [{key, label, countries}]}`, `countries` being two-letter codes or `*` for everywhere. `country` is null when the place is unknown; every source is then listed. A register this instance is not configured with is not listed. Free.',
  }),
  op({
    id: 'leadsStatus',
    method: 'GET',
    path: '/v1/leads/{job_id}',
    tag: 'Leads',
    summary: 'Find Leads run status and leads',
    pricing: 'free',
    description:
      'The run: `status` (`queued`, `running`, `completed`, `cancelled`, `failed`), `stage`, `partial` (true while it runs: `leads` then holds the leads found so far, without contacts), `leads`, `summary` (each source\'s outcome, and `attribution`: the licence notice of every source whose data is in the leads, to show with them), `creditsUsed`, `error` and `warning` when there is something to say. Another key\'s run is 404. Free.',
  }),
  op({
    id: 'leadsCancel',
    method: 'DELETE',
    path: '/v1/leads/{job_id}',
    tag: 'Leads',
    summary: 'Stop a Find Leads run',
    pricing: 'free',
    description:
      'A running run stops within a few seconds and keeps, and pays for, the leads it had; a queued run never starts and costs nothing; a finished run is unchanged. Answers the run as GET does. Free.',
  }),
  op({
    id: 'socialCatalog',
    method: 'GET',
    path: '/v1/social',
    tag: 'Social',
    summary: 'List social endpoints (free)',
    pricing: 'free',
    description: "Every platform's endpoints: each one's path, what it answers, its inputs as JSON Schema and its price key; and per platform whether this instance has the credentials it needs (`configured`, `missing`).",
  }),
  op({
    id: 'socialRun',
    method: 'POST',
    path: '/v1/social/{platform}/{endpoint}',
    tag: 'Social',
    summary: 'Run one social endpoint',
    body: SocialBody,
    description:
      'Runs one endpoint of the catalog (GET /v1/social); the body is validated against that endpoint\'s inputs (`x-social-endpoints` lists them, each input a component of this document). Costs 1 credit when data comes back (a post or comment, a profile, a repository); an empty answer, and a failure, cost nothing.',
  }),
] as const satisfies readonly Operation[];
