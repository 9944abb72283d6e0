/**
 * Engines that integration suites need (Chromium, Kafka via kcat, Redis, ClickHouse) and the
 * one policy for when one is missing: with `REQUIRE_ENGINES=1` (CI) the suite fails, naming
 * the engine and how to install it; otherwise it is skipped with a one-line reason.
 *
 *   const hasChromium = await engine('chromium', () => existsSync(CHROMIUM.path), 'apt-get install -y chromium');
 *   describe.skipIf(!hasChromium)('gateway/docs', () => { ... });
 *
 * A probe may be async (a TCP ping to Redis) and may throw; a throw counts as "missing" and
 * its message goes into the reason.
 */

export type Probe = () => boolean | Promise<boolean>;

/** The error thrown at collection time when an engine is missing and engines are required. */
export class EngineMissing extends Error {
  constructor(readonly engineName: string, reason: string) {
    super(reason);
    this.name = 'EngineMissing';
  }
}

export function enginesRequired(env: Readonly<Record<string, string | undefined>> = process.env): boolean {
  return env.REQUIRE_ENGINES === '1';
}

async function probeOnce(probe: Probe): Promise<{ ok: boolean; why?: string }> {
  try {
    return { ok: await probe() };
  } catch (error) {
    return { ok: false, why: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * True when the suite should run. A missing engine throws EngineMissing when engines are
 * required (the test file fails), or prints one line to stderr and returns false.
 */
export async function engine(
  name: string,
  probe: Probe,
  install: string,
  options: { required?: boolean; write?: (line: string) => void } = {},
): Promise<boolean> {
  const { ok, why } = await probeOnce(probe);
  if (ok) return true;
  const missing = `engine "${name}" is not available${why ? ` (${why})` : ''}; install: ${install}`;
  if (options.required ?? enginesRequired()) {
    throw new EngineMissing(name, `${missing} [REQUIRE_ENGINES=1]`);
  }
  (options.write ?? ((line: string) => process.stderr.write(line)))(
    `skipping suites that need ${name}: ${missing} (set REQUIRE_ENGINES=1 to fail instead)\n`,
  );
  return false;
}

/** Debian's Chromium, driven by playwright-core; never a downloaded browser. */
export const CHROMIUM = {
  path: '/usr/bin/chromium',
  install: 'apt-get install -y chromium',
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
    '--disable-quic',
  ],
} as const;
