/** actors/renderer/peer: who holds a loopback connection to the guarded proxy (/proc/net/tcp). */
import { describe, expect, it } from 'vitest';
import { findSocket, procAddress } from '../../actors/renderer/peer.js';

describe('actors/renderer/peer (who holds a loopback connection)', () => {
  it('finds the open socket of a 4-tuple in /proc/net/tcp, not a TIME_WAIT one of the same ports', () => {
    expect(procAddress('127.0.0.1')).toBe('0100007F');
    expect(procAddress('::ffff:10.1.2.3')).toBe('0302010A');
    expect(procAddress('::1')).toBeNull();
    const table = [
      '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode',
      '   0: 0100007F:A411 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 111 1 0000000000000000 100 0 0 10 0',
      '   1: 0100007F:C350 0100007F:A411 06 00000000:00000000 03:00000F2E 00000000     0        0 0 3 0000000000000000',
      '   2: 0100007F:C350 0100007F:A411 01 00000000:00000000 00:00000000 00000000  1000        0 4242 1 0000000000000000 20 4 30 10 -1',
      '   3: 0100007F:A411 0100007F:C350 01 00000000:00000000 00:00000000 00000000     0        0 777 1 0000000000000000 20 4 30 10 -1',
    ].join('\n');
    const client = { address: '127.0.0.1', port: 0xc350 };
    const server = { address: '127.0.0.1', port: 0xa411 };
    expect(findSocket(table, client, server)).toEqual({ uid: 1000, inode: 4242 });
    expect(findSocket(table, { ...client, port: 0xc351 }, server)).toBeNull();
  });
});
