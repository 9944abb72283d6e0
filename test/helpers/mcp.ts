/**
 * The MCP SDK's client against our MCP server (gateway/mcp/), for the e2e suites: over
 * Streamable HTTP at a gateway's /mcp, and over stdio, `main.ts mcp` started as the package's
 * `bin` runs it; reading a call's answer and checking a job's progress notifications.
 */
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';
import { cleanEnv, REPO_ROOT } from './process.js';

export type Json = Record<string, any>;

/** The SDK's client connected to `base`/mcp with `key` as the bearer. */
export async function mcpHttpClient(base: string, key: string): Promise<Client> {
  const client = new Client({ name: 'wds-mcp-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  return client;
}

export function textOf(result: CallToolResult): string {
  const first = result.content[0];
  return first && first.type === 'text' ? first.text : '';
}

/** A successful call's structured content, which its first text part repeats. */
export function dataOf(result: CallToolResult): Json {
  expect(result.isError, textOf(result)).toBeFalsy();
  expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);
  return result.structuredContent as Json;
}

export async function callTool(client: Client, name: string, args: Json): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })) as CallToolResult;
}

/**
 * A job's progress notifications: at least one, each more pages done than the one before (as
 * MCP requires), none past the job's `pages`, each saying the job's status. The SDK's client drops a
 * notification it reads in the same chunk as the answer (gateway/mcp/server.ts `followJob`
 * leaves a moment between them); on a loaded machine the last may still be lost that way.
 */
export function expectProgress(progress: readonly Progress[], pages: number): void {
  expect(progress.length, JSON.stringify(progress)).toBeGreaterThan(0);
  for (let i = 1; i < progress.length; i += 1) expect(progress[i]!.progress).toBeGreaterThan(progress[i - 1]!.progress);
  const last = progress[progress.length - 1]!;
  expect(last.progress).toBeLessThanOrEqual(pages);
  for (const p of progress) expect(p.message).toMatch(/^(queued|scraping|completed): \d+ of \d+ pages$/);
}


/** `main.ts mcp` as the package's bin runs it, through tsx, with `env` only (no inherited service setting). */
export function stdioTransport(env: Record<string, string>): StdioClientTransport {
  return new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', join(REPO_ROOT, 'main.ts'), 'mcp'],
    cwd: REPO_ROOT,
    env: cleanEnv(env) as Record<string, string>,
    stderr: 'pipe',
  });
}

export async function mcpStdioClient(env: Record<string, string>): Promise<{ client: Client; stderr: () => string; pid: number | null }> {
  const transport = stdioTransport(env);
  let err = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
  });
  const client = new Client({ name: 'wds-mcp-stdio-test', version: '1.0.0' });
  // Any line on the server's standard output that is not a protocol message fails here.
  const stray: Error[] = [];
  client.onerror = (error) => stray.push(error);
  await client.connect(transport, { timeout: 120_000 });
  return {
    client,
    pid: transport.pid,
    stderr: () => {
      // A last progress notification read with its answer is reported as for an unknown token (see expectProgress).
      expect(stray.filter((e) => !/progress notification for an unknown token/.test(e.message))).toEqual([]);
      return err;
    },
  };
}
