/**
 * Child process for bench/company.ts: the Shopify-like store of test/helpers/fake-sites/stores.ts
 * with BENCH_COMPANY_PRODUCTS products, served on 127.0.0.1 in a process of its own (so the
 * store's JSON serving never shares an event loop with the side being measured). Reports
 * `{port}` once listening; stops on SIGTERM.
 */
import { products, shopifyStore } from '../../test/helpers/fake-sites/stores.js';
import { startFakeSite } from '../../test/helpers/fake-sites/server.js';

const count = Number(process.env.BENCH_COMPANY_PRODUCTS ?? 10_000);
const site = await startFakeSite(shopifyStore(products(count)));
process.once('SIGTERM', () => {
  void site.close().finally(() => process.exit(0));
});
process.send?.({ port: site.port });
