/** Something a describe block opens before its tests and closes after them. */
import { afterAll, beforeAll } from 'vitest';

/** Opens `open()` before the block's tests, hands it to `use`, and closes it after them. */
export function openForBlock<T extends { close(): Promise<void> }>(open: () => Promise<T>, use: (opened: T) => void): void {
  let opened: T | undefined;
  beforeAll(async () => {
    opened = await open();
    use(opened);
  });
  afterAll(async () => {
    await opened?.close();
  });
}
