/**
 * A page's contact details, each with the page it was found on: emails (emails.ts), phones
 * (phones.ts: `tel:` links, the markup's `telephone`, labelled and international numbers in
 * the text), contact forms and social profile links (socials.ts, from links and the markup's
 * `sameAs`).
 *
 * A contact form is a `<form>` with a `<textarea>` (a message to write), that is not a search
 * or comment form; or an embedded form of a forms service (Typeform, Jotform, Google Forms,
 * HubSpot, Tally, Formstack, Cognito). Its URL is where it is sent (`action`, resolved), else
 * the page that holds it.
 *
 * An address on a line crediting the site's makers (`Webdesign: Pixelwerk, studio@pixelwerk.de`,
 * emails.ts `creditEmails`) is the agency's, and left out unless it is at the site's own domain.
 *
 * At most MAX_CONTACTS of each kind a page.
 */
import type { Element } from 'domhandler';
import type { Thing } from '../../structured/types.js';
import { findThings } from '../../structured/markup/index.js';
import { creditEmails, pageEmails } from './emails.js';
import { absolute, type HtmlPage } from './html.js';
import { MAX_CONTACTS } from './limits.js';
import { phoneKey, scanPhones, telNumber, validPhone } from './phones.js';
import { socialProfile, type SocialProfile } from './socials.js';
import { textsOf } from './things.js';

export interface FoundEmail {
  readonly email: string;
  readonly page: string;
}
export interface FoundPhone {
  readonly phone: string;
  readonly page: string;
}
export interface FoundForm {
  readonly url: string;
  readonly page: string;
}
export interface FoundSocial extends SocialProfile {
  readonly page: string;
}

export interface PageContacts {
  readonly emails: readonly FoundEmail[];
  readonly phones: readonly FoundPhone[];
  readonly forms: readonly FoundForm[];
  readonly socials: readonly FoundSocial[];
}

const FORM_HOSTS = ['typeform.com', 'jotform.com', 'docs.google.com/forms', 'forms.gle', 'hsforms.com', 'hubspot.com', 'tally.so', 'formstack.com', 'cognitoforms.com', 'forms.office.com'];

/** The things that say who runs the site: organizations (any subtype) and the people and places they contain. */
export function organizations(things: readonly Thing[]): Thing[] {
  return findThings({ things }, ['Organization']);
}

function contactForms(page: HtmlPage): string[] {
  const out: string[] = [];
  page.$('form').each((_, el) => {
    const form = el as Element;
    const $form = page.$(form);
    const action = (form.attribs.action ?? '').toLowerCase();
    const searchy = (form.attribs.role ?? '') === 'search' || action.includes('search') || $form.find('input[type="search"]').length > 0;
    const comment = action.includes('wp-comments-post') || (form.attribs.id ?? '').includes('comment');
    if (searchy || comment || $form.find('textarea').length === 0) return;
    out.push(absolute(form.attribs.action, page.url) ?? page.url);
  });
  const embedded = (src: string | undefined) => (src && FORM_HOSTS.some((h) => src.includes(h)) ? absolute(src, page.url) : null);
  page.$('iframe[src], a[href]').each((_, el) => {
    const url = embedded((el as Element).attribs.src ?? (el as Element).attribs.href);
    if (url) out.push(url);
  });
  page.$('[data-tf-widget]').each((_, el) => void out.push(`https://form.typeform.com/to/${encodeURIComponent((el as Element).attribs['data-tf-widget'] ?? '')}`));
  // A forms service's script builds its form in the page: the page is the form's URL.
  if (page.$('script[src]').toArray().some((el) => embedded((el as Element).attribs.src) !== null)) out.push(page.url);
  return [...new Set(out)];
}

/** Whether an address is at the site's own domain (or a subdomain of it). */
function atDomain(email: string, domain: string): boolean {
  const host = email.slice(email.indexOf('@') + 1);
  return host === domain || host.endsWith(`.${domain}`);
}

/** The page's contact details (see the file comment); `siteDomain` keeps the site's own addresses even on a credit line. */
export function pageContacts(page: HtmlPage, siteDomain?: string): PageContacts {
  const orgs = organizations(page.things);
  const phones = new Map<string, string>();
  const addPhone = (phone: string | null) => {
    if (phone && !phones.has(phoneKey(phone))) phones.set(phoneKey(phone), phone);
  };
  for (const org of orgs) {
    for (const t of textsOf(org, 'telephone')) addPhone(validPhone(t, true));
  }
  for (const contactPoint of findThings({ things: page.things }, ['ContactPoint'])) for (const t of textsOf(contactPoint, 'telephone')) addPhone(validPhone(t, true));
  for (const link of page.links) {
    const lower = link.href.slice(0, 7).toLowerCase();
    if (lower.startsWith('tel:') || lower.startsWith('callto:')) addPhone(telNumber(link.href));
  }
  scanPhones(page.text).forEach(addPhone);

  const socials = new Map<string, FoundSocial>();
  const addSocial = (href: string) => {
    const profile = socialProfile(href);
    if (profile && !socials.has(profile.url)) socials.set(profile.url, { ...profile, page: page.url });
  };
  for (const org of orgs) textsOf(org, 'sameAs').forEach(addSocial);
  for (const link of page.links) addSocial(link.href);

  const credited = creditEmails(page.$, page.text);
  const emails = pageEmails(page.$, page.text).filter((e) => !credited.has(e) || (siteDomain !== undefined && atDomain(e, siteDomain)));
  return {
    emails: emails.slice(0, MAX_CONTACTS).map((email) => ({ email, page: page.url })),
    phones: [...phones.values()].slice(0, MAX_CONTACTS).map((phone) => ({ phone, page: page.url })),
    forms: contactForms(page).slice(0, MAX_CONTACTS).map((url) => ({ url, page: page.url })),
    socials: [...socials.values()].slice(0, MAX_CONTACTS),
  };
}
