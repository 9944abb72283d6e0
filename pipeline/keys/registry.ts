/**
 * API keys and their credit balances. The embedded implementation is an append-only ledger
 * file (ledger-file.ts); the distributed one keeps the same records in the store and the
 * balances in coordination state. Secrets never leave `create`'s return value: records hold
 * only a short prefix for identification, and implementations store a hash.
 */
export interface KeyRecord {
  readonly id: string;
  readonly name: string;
  /** First characters of the secret, enough to tell keys apart in a list. */
  readonly prefix: string;
  readonly unlimited: boolean;
  readonly revoked: boolean;
  /** Credits left; null for an unlimited key. */
  readonly balance: number | null;
  readonly createdAt: string;
}

/** What an implementation keeps of a key: the record without its balance, plus the secret's hash. */
export type StoredKeyFields = Omit<KeyRecord, 'balance'> & { readonly hash: string };

/** The record callers see of a stored key: never its hash; an unlimited key has no balance. */
export function keyRecord(key: Omit<StoredKeyFields, 'hash'>, balance: number): KeyRecord {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    unlimited: key.unlimited,
    revoked: key.revoked,
    balance: key.unlimited ? null : balance,
    createdAt: key.createdAt,
  };
}

export interface NewKeyOptions {
  name: string;
  credits: number | 'unlimited';
  /** Use this secret instead of generating one (API_KEY). */
  secret?: string;
}

/** Credits charged in one calendar month (UTC): `month` is `YYYY-MM`. */
export interface MonthlyUsage {
  readonly month: string;
  readonly credits: number;
}

export interface KeyRegistry {
  create(options: NewKeyOptions): Promise<{ key: string; record: KeyRecord }>;
  /** Makes sure this secret is an active, unlimited key (the API_KEY setting). */
  ensure(secret: string, name: string): Promise<KeyRecord>;
  /** The key for a presented secret, revoked or not; null when unknown. */
  authenticate(secret: string): Promise<KeyRecord | null>;
  /**
   * The key for a secret this process has authenticated before, answered without waiting;
   * undefined when it has to be looked up with `authenticate`. Registries that keep no such
   * memo leave it out.
   */
  known?(secret: string): KeyRecord | undefined;
  get(idOrPrefix: string): Promise<KeyRecord | null>;
  list(): Promise<KeyRecord[]>;
  revoke(idOrPrefix: string): Promise<KeyRecord>;
  topup(idOrPrefix: string, credits: number): Promise<KeyRecord>;
  /**
   * Holds `credits` of the key's balance for a request in flight; false when the balance,
   * less what other requests hold, cannot cover it. Unlimited keys always succeed.
   */
  reserve(key: KeyRecord, credits: number): Promise<boolean>;
  /** Gives a hold back unused (the request failed). */
  release(key: KeyRecord, credits: number): Promise<void>;
  /**
   * Ends a hold of `reserved` by charging `actual` (appended to the ledger); returns the
   * balance after it, or null for an unlimited key.
   */
  settle(key: KeyRecord, reserved: number, actual: number, meta: { requestId: string; op: string }): Promise<number | null>;
  /** The credits charged to the key in each calendar month (UTC) it was charged in, oldest first. */
  usage(key: KeyRecord): Promise<MonthlyUsage[]>;
  close(): void;
}
