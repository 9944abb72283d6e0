import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, redactedConfig, SETTINGS } from '../../pipeline/service/config.js';
import { SETTINGS_PARTS } from '../../pipeline/service/settings.js';
import { runTs } from '../helpers/process.js';

function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('pipeline/runtime/config', () => {
  it('has defaults for everything', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3002,
      host: '0.0.0.0',
      dataDir: './data',
      logLevel: 'info',
      fetchAllowPrivate: false,
      apiKey: null,
      bootstrapKeyCredits: 'unlimited',
      rateLimitPerMinute: 600,
      rateLimitBurst: 100,
      bodyLimitBytes: 2 * 1024 * 1024,
      uploadLimitBytes: 50 * 1024 * 1024,
    });
    expect(Object.keys(config).sort()).toEqual(Object.keys(SETTINGS).sort());
    for (const [name, spec] of Object.entries(SETTINGS)) expect(config[name as keyof typeof config]).toBe(spec.default);
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig({ PORT: '', LOG_LEVEL: '', API_KEY: '' })).toMatchObject({ port: 3002, logLevel: 'info', apiKey: null });
  });

  it('reads each setting from its variable', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '127.0.0.1',
      DATA_DIR: '/var/lib/wds',
      LOG_LEVEL: 'debug',
      FETCH_ALLOW_PRIVATE: 'true',
      API_KEY: 'a-key-of-20-chars-xx',
      BOOTSTRAP_KEY_CREDITS: '500',
      SOURCE_URL: 'https://example.com/src',
      RATE_LIMIT_PER_MINUTE: '0',
      RATE_LIMIT_BURST: '5',
      BODY_LIMIT_BYTES: '4096',
      UPLOAD_LIMIT_BYTES: '1024',
    });
    expect(config).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      dataDir: '/var/lib/wds',
      logLevel: 'debug',
      fetchAllowPrivate: true,
      apiKey: 'a-key-of-20-chars-xx',
      bootstrapKeyCredits: 500,
      sourceUrl: 'https://example.com/src',
      rateLimitPerMinute: 0,
      rateLimitBurst: 5,
      bodyLimitBytes: 4096,
      uploadLimitBytes: 1024,
    });
  });

  it('accepts the port range ends', () => {
    expect(loadConfig({ PORT: '0' }).port).toBe(0);
    expect(loadConfig({ PORT: '65535' }).port).toBe(65535);
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['PORT', '-1'],
    ['PORT', '80.5'],
    ['PORT', '1e3'],
    ['LOG_LEVEL', 'loud'],
    ['LOG_LEVEL', 'INFO'],
    ['FETCH_ALLOW_PRIVATE', 'maybe'],
    ['API_KEY', 'too-short'],
    ['API_KEY', 'x'.repeat(15)],
    ['BOOTSTRAP_KEY_CREDITS', '-1'],
    ['BOOTSTRAP_KEY_CREDITS', 'lots'],
    ['RATE_LIMIT_PER_MINUTE', '-5'],
    ['RATE_LIMIT_BURST', '0'],
    ['BODY_LIMIT_BYTES', '100'],
    ['UPLOAD_LIMIT_BYTES', 'big'],
  ])('rejects %s=%s with a ConfigError naming the variable', (env, value) => {
    const error = configError({ [env]: value });
    expect(error.env).toBe(env);
    expect(error.code).toBe('config_invalid');
    expect(error.message.startsWith(`${env}: `)).toBe(true);
  });

  it('shows the offending value in the message, except for API_KEY', () => {
    expect(configError({ PORT: 'abc' }).message).toContain('"abc"');
    expect(configError({ PORT: '70000' }).message).toContain('70000');
    expect(configError({ API_KEY: 'short-secret' }).message).not.toContain('short-secret');
  });

  it.each([
    ['true', true],
    ['false', false],
    ['1', true],
    ['0', false],
    ['TRUE', true],
    ['False', false],
  ])('reads the boolean %s as %s', (raw, value) => {
    expect(loadConfig({ FETCH_ALLOW_PRIVATE: raw }).fetchAllowPrivate).toBe(value);
  });

  it('accepts API_KEY of exactly 16 characters', () => {
    expect(loadConfig({ API_KEY: 'x'.repeat(16) }).apiKey).toBe('x'.repeat(16));
  });

  it('refuses a WEBHOOK_SECRET under 32 characters without quoting it, and masks it', () => {
    expect(configError({ WEBHOOK_SECRET: 'too-short-secret' })).toMatchObject({ env: 'WEBHOOK_SECRET' });
    expect(configError({ WEBHOOK_SECRET: 'too-short-secret' }).message).not.toContain('too-short-secret');
    const config = loadConfig({ WEBHOOK_SECRET: 'w'.repeat(32) });
    expect(config.webhookSecret).toBe('w'.repeat(32));
    expect(redactedConfig(config).webhookSecret).toBe('***');
  });

  it('reads BOOTSTRAP_KEY_CREDITS as a whole number or unlimited', () => {
    expect(loadConfig({ BOOTSTRAP_KEY_CREDITS: '0' }).bootstrapKeyCredits).toBe(0);
    expect(loadConfig({ BOOTSTRAP_KEY_CREDITS: 'unlimited' }).bootstrapKeyCredits).toBe('unlimited');
  });

  it('reads RENDER_RECYCLE_PAGES: 500 by default, 0 for never, a negative, fractional or huge value refused', () => {
    expect(loadConfig({}).renderRecyclePages).toBe(500);
    expect(loadConfig({ RENDER_RECYCLE_PAGES: '3' }).renderRecyclePages).toBe(3);
    expect(loadConfig({ RENDER_RECYCLE_PAGES: '0' }).renderRecyclePages).toBe(0);
    for (const bad of ['-1', 'often', '2.5', '1000001']) {
      const error = configError({ RENDER_RECYCLE_PAGES: bad });
      expect(error.env).toBe('RENDER_RECYCLE_PAGES');
      expect(error.message.startsWith('RENDER_RECYCLE_PAGES: ')).toBe(true);
    }
  });

  it('returns a frozen object', () => {
    const config = loadConfig({});
    expect(Object.isFrozen(config)).toBe(true);
    expect(() => {
      (config as { port: number }).port = 1;
    }).toThrow(TypeError);
    expect(config.port).toBe(3002);
  });

  it('masks API_KEY in redactedConfig and leaves the rest', () => {
    const secret = 'super-secret-key-123456';
    const config = loadConfig({ API_KEY: secret, PORT: '1234' });
    const shown = redactedConfig(config);
    expect(shown.apiKey).toBe('***');
    expect(JSON.stringify(shown)).not.toContain(secret);
    expect(shown.port).toBe(1234);
    expect(Object.keys(shown).sort()).toEqual(Object.keys(config).sort());
    expect(redactedConfig(loadConfig({})).apiKey).toBeNull();
  });

  it('masks every secret setting in redactedConfig', () => {
    const secrets = Object.entries(SETTINGS).filter(([, spec]) => 'secret' in spec && spec.secret);
    expect(secrets.map(([name]) => name)).toContain('apiKey');
    const env = Object.fromEntries(secrets.map(([, spec]) => [spec.env, `value-of-${spec.env}-1234567890`]));
    const shown = redactedConfig(loadConfig(env));
    for (const [name, spec] of secrets) {
      expect(shown[name], spec.env).toBe('***');
      expect(JSON.stringify(shown)).not.toContain(`value-of-${spec.env}`);
    }
  });

  it('is assembled from its parts, each setting declared by one part only (pipeline/service/settings.ts)', () => {
    // A spread keeps the later of two equal names: a second declaration would vanish silently.
    const names = Object.values(SETTINGS_PARTS).flatMap((part) => Object.keys(part));
    expect(names.sort()).toEqual(Object.keys(SETTINGS).sort());
    expect(Object.keys(SETTINGS_PARTS.runtime).filter((name) => /^(model|search|monitor|mention)/.test(name))).toEqual([]);
  });

  it('every setting has an env var, a description and a default of its type', () => {
    const envs = Object.values(SETTINGS).map((s) => s.env);
    expect(new Set(envs).size).toBe(envs.length);
    for (const spec of Object.values(SETTINGS)) {
      expect(spec.env).toMatch(/^[A-Z][A-Z0-9_]*$/);
      expect(spec.description.length).toBeGreaterThan(10);
    }
  });

  describe('proxy pools and the fetch size cap', () => {
    it('reads comma-separated proxy URLs into a frozen list, trimming spaces', () => {
      const config = loadConfig({
        PROXY_DATACENTER_URLS: 'http://user:pa%2Css@10.0.0.1:8000, https://proxy.example:8443',
        PROXY_RESIDENTIAL_URLS: 'http://r.example:1',
        PROXY_MOBILE_URLS: 'http://m.example:2',
      });
      expect(config.proxyDatacenterUrls).toEqual(['http://user:pa%2Css@10.0.0.1:8000', 'https://proxy.example:8443']);
      expect(config.proxyResidentialUrls).toEqual(['http://r.example:1']);
      expect(config.proxyMobileUrls).toEqual(['http://m.example:2']);
      expect(Object.isFrozen(config.proxyDatacenterUrls)).toBe(true);
    });

    it('reads PROXY_COUNTRY_URLS as country → URLs, codes upper-cased', () => {
      const config = loadConfig({ PROXY_COUNTRY_URLS: 'us=http://a.example:1|http://u:p@b.example:2, De=http://c.example:3' });
      expect(config.proxyCountryUrls).toEqual({ US: ['http://a.example:1', 'http://u:p@b.example:2'], DE: ['http://c.example:3'] });
      expect(Object.isFrozen(config.proxyCountryUrls)).toBe(true);
    });

    it('leaves the pools unset by default and caps fetches at 15 MiB', () => {
      const config = loadConfig({});
      expect(config).toMatchObject({ proxyDatacenterUrls: null, proxyResidentialUrls: null, proxyMobileUrls: null, proxyCountryUrls: null });
      expect(config.fetchMaxBytes).toBe(15 * 1024 * 1024);
      expect(loadConfig({ FETCH_MAX_BYTES: '1024' }).fetchMaxBytes).toBe(1024);
      expect(loadConfig({ FETCH_MAX_BYTES: String(32 * 1024 * 1024) }).fetchMaxBytes).toBe(32 * 1024 * 1024);
    });

    it.each([
      ['PROXY_DATACENTER_URLS', 'socks5://u:hunter2@10.0.0.1:1080'],
      ['PROXY_DATACENTER_URLS', 'http://u:hunter2@10.0.0.1:8000,'],
      ['PROXY_RESIDENTIAL_URLS', 'u:hunter2@10.0.0.1:8000'],
      ['PROXY_MOBILE_URLS', 'http://u:hunter2@10.0.0.1:8000/path?x=1'],
      ['PROXY_COUNTRY_URLS', 'http://u:hunter2@10.0.0.1:8000'],
      ['PROXY_COUNTRY_URLS', 'usa=http://u:hunter2@10.0.0.1:8000'],
      ['PROXY_COUNTRY_URLS', 'us=http://u:hunter2@a:1,US=http://b:2'],
      ['PROXY_COUNTRY_URLS', 'us=http://u:hunter2@a:1|'],
      ['PROXY_COUNTRY_URLS', 'de='],
      ['FETCH_MAX_BYTES', '100'],
      ['FETCH_MAX_BYTES', String(32 * 1024 * 1024 + 1)],
    ])('rejects %s=%s naming the variable, never quoting a password', (env, value) => {
      const error = configError({ [env]: value });
      expect(error.env).toBe(env);
      expect(error.message.startsWith(`${env}: `)).toBe(true);
      expect(error.message).not.toContain('hunter2');
    });

    it('shows proxy URLs in redactedConfig with their user info masked', () => {
      const config = loadConfig({
        PROXY_DATACENTER_URLS: 'http://alice:s3cret-pass@10.0.0.1:8000,http://10.0.0.2:8000',
        PROXY_COUNTRY_URLS: 'fr=http://bob:other-s3cret@fr.example:9000',
      });
      const shown = redactedConfig(config);
      const text = JSON.stringify(shown);
      expect(text).not.toContain('s3cret');
      expect(text).not.toContain('alice');
      expect(text).not.toContain('bob');
      expect(shown.proxyDatacenterUrls).toEqual(['http://***@10.0.0.1:8000/', 'http://10.0.0.2:8000/']);
      expect(shown.proxyCountryUrls).toEqual({ FR: ['http://***@fr.example:9000/'] });
      expect(shown.proxyMobileUrls).toBeNull();
    });

    it('main.ts stops with code 78 on a bad proxy setting, naming it and not printing the password', async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'wds-config-'));
      try {
        const env = { PROXY_COUNTRY_URLS: 'us=ftp://carol:pw-hunter2@a.example:21', DATA_DIR: dataDir, HOST: '127.0.0.1', LOG_LEVEL: 'info' };
        const res = await runTs('main.ts', [], env);
        expect(res.code).toBe(78);
        expect(res.stderr).toContain('PROXY_COUNTRY_URLS');
        expect(res.stderr + res.stdout).not.toContain('hunter2');
        expect(res.stdout).not.toContain('listening');
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    });
  });

  it('main.ts exits with code 78 and names the variable when a setting is bad', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'wds-config-'));
    try {
      const res = await runTs('main.ts', [], { PORT: 'abc', DATA_DIR: dataDir, HOST: '127.0.0.1', LOG_LEVEL: 'info' });
      expect(res.code).toBe(78);
      expect(res.stderr).toContain('PORT');
      expect(res.stderr).toContain('abc');
      expect(res.stdout).not.toContain('listening');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
