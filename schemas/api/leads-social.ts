/** Request schemas of Find Leads and the social catalog. Both bodies are open objects in the spec. */
import { Type } from '@sinclair/typebox';
import { COUNTRY_CODE } from './common.js';

export const LeadsBody = Type.Object(
  {
    query: Type.String({ minLength: 1, maxLength: 500, description: 'What kind of business to find, e.g. `dentists`.' }),
    where: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'A place, e.g. `Lyon, France`.' })),
    country: Type.Optional(COUNTRY_CODE),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100, description: 'Most leads found; each lead is charged.' })),
    sources: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { uniqueItems: true, description: 'Source keys from GET /v1/leads/sources (default: all for the country).' })),
    contacts: Type.Optional(Type.Boolean({ default: true, description: "Look up each lead's contacts." })),
  },
  { additionalProperties: true, description: 'Start a Find Leads run (an open object, as the spec declares it).' },
);

export const LeadsSourcesQuery = Type.Object({
  country: Type.Optional(COUNTRY_CODE),
  where: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'A place; its country is used.' })),
});

export const SocialBody = Type.Object({}, { additionalProperties: true, description: "The endpoint's inputs, as listed by GET /v1/social." });
