/**
 * A promise a test holds a handler on until it lets go: `const { promise: gate, release } = hold();`
 * then `await gate` in the handler and `release()` in the test.
 */
export function hold(): { readonly promise: Promise<void>; release(): void } {
  let release: () => void = () => {};
  const promise = new Promise<void>((resolve) => (release = resolve));
  return { promise, release: () => release() };
}
