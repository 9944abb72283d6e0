/**
 * A coordination state (or any object) with each method call reported before it runs: its
 * name and arguments. How the frontier's tests and bench/frontier.ts count a handler's state
 * steps, each a Redis round trip on RedisState.
 */
export function observedState<S extends object>(state: S, onCall: (name: string, args: readonly unknown[]) => void): S {
  return new Proxy(state, {
    get(target, name, receiver) {
      const value: unknown = Reflect.get(target, name, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        onCall(String(name), args);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}
