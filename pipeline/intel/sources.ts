/**
 * The outside sources the domain operations read, built once per intel process from the
 * settings (pipeline/intel/settings.ts): the registries over RDAP, DNS, the Wayback Machine's
 * index, and the link graph in the store. Every operation is handed these (`IntelSources`),
 * so a test can hand it the same clients pointed at local servers.
 */
import { DnsClient, type DnsLookup, type DnsType } from '../clients/dns.js';
import { RdapClient, type RdapLookup } from '../clients/rdap.js';
import { WaybackClient, type Capture } from '../clients/wayback.js';
import type { BatchWriter } from '../runtime/store/batch-writer.js';
import type { Store } from '../runtime/store/store.js';
import { flushLinkEdges } from './links.js';
import { dnsServersOf, rdapBootstrapOf, type IntelConfig } from './settings.js';

export interface IntelSources {
  readonly rdap: { lookup(domain: string, ctx: { readonly timeoutMs: number; readonly signal?: AbortSignal }): Promise<RdapLookup> };
  readonly dns: {
    lookup(domain: string, types: readonly DnsType[], ctx?: { readonly signal?: AbortSignal }): Promise<DnsLookup>;
    exists(domain: string, ctx?: { readonly signal?: AbortSignal }): Promise<boolean>;
  };
  readonly wayback: {
    yearly(domain: string, ctx: { readonly timeoutMs: number; readonly signal?: AbortSignal }): Promise<Capture[]>;
    snapshotUrl(capture: Capture): string;
  };
  /** Where the link graph (and the reports' records) are read. */
  readonly store: Store;
  /** Writes the link-graph rows this process has queued, so a read here sees the pages it has just stored. */
  readonly flushLinks: () => Promise<void>;
}

/** How long each source may take, from the settings. */
export interface SourceLimits {
  readonly rdapTimeoutMs: number;
  readonly waybackTimeoutMs: number;
}

/** The clients of one intel process, from the settings (a malformed DNS_SERVERS stops the start). */
export function intelSources(config: IntelConfig, store: Store, writer: Pick<BatchWriter, 'flush' | 'pending'>, now: () => number = Date.now): IntelSources {
  const servers = dnsServersOf(config);
  return {
    rdap: new RdapClient({
      bootstrapUrl: rdapBootstrapOf(config),
      baseUrl: config.rdapBaseUrl,
      now,
      registryConcurrency: config.rdapRegistryConcurrency,
    }),
    dns: new DnsClient({ ...(servers ? { servers } : {}), timeoutMs: config.dnsTimeoutMs, tries: config.dnsTries }),
    wayback: new WaybackClient({ baseUrl: config.waybackUrl }),
    store,
    flushLinks: () => flushLinkEdges(writer),
  };
}

export function sourceLimits(config: IntelConfig): SourceLimits {
  return { rdapTimeoutMs: config.rdapTimeoutMs, waybackTimeoutMs: config.waybackTimeoutMs };
}
