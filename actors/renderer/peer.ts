/**
 * Who is at the other end of a connection to the guarded proxy (proxy.ts): it serves only
 * connections whose client socket is held by the Chromium this process launched, so it is
 * no open proxy for other local programs — without a credential, which Playwright can only
 * answer by pausing every request of the page in the browser (CDP Fetch) after a 407.
 *
 * Linux only (the renderer's target: Debian's Chromium):
 *
 * 1. `/proc/net/tcp` names the client socket of an accepted loopback connection (its
 *    4-tuple is unique while the connection is open): its owner uid and inode. Another uid
 *    is refused at once.
 * 2. The socket's inode must be among the open files (`/proc/<pid>/fd/*` → `socket:[inode]`)
 *    of the browser process or one of its descendants (the network service holds them). The
 *    browser is the descendant of this process whose command line carries `marker`, a random
 *    switch Chromium ignores; the processes are found again when a socket is not found among
 *    the known ones (a relaunch, a restarted network service).
 *
 * A check costs one read of /proc/net/tcp and a look through one process's open files, once
 * per connection (Chromium keeps its proxy connections alive).
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

export interface SocketEntry {
  readonly uid: number;
  readonly inode: number;
}

/** `127.0.0.1` → `0100007F`, as /proc/net/tcp writes an IPv4 address (little-endian hex); null for other forms. */
export function procAddress(ip: string): string | null {
  const v4 = /^(?:::ffff:)?(\d+)\.(\d+)\.(\d+)\.(\d+)$/i.exec(ip);
  if (!v4) return null;
  return [v4[4], v4[3], v4[2], v4[1]].map((octet) => Number(octet).toString(16).toUpperCase().padStart(2, '0')).join('');
}

function hexPort(port: number): string {
  return port.toString(16).toUpperCase().padStart(4, '0');
}

/**
 * The open socket whose local end is `client` and remote end is `server` (IPv4), from the
 * text of /proc/net/tcp; null when there is none (closed meanwhile, or not IPv4).
 */
export function findSocket(table: string, client: { address: string; port: number }, server: { address: string; port: number }): SocketEntry | null {
  const local = procAddress(client.address);
  const remote = procAddress(server.address);
  if (!local || !remote) return null;
  const needle = ` ${local}:${hexPort(client.port)} ${remote}:${hexPort(server.port)} `;
  for (let at = table.indexOf(needle); at >= 0; at = table.indexOf(needle, at + 1)) {
    const end = table.indexOf('\n', at);
    // sl local remote st queues tr retrnsmt uid timeout inode …
    const fields = table.slice(table.lastIndexOf('\n', at) + 1, end < 0 ? undefined : end).trim().split(/\s+/);
    const inode = Number(fields[9]);
    // A TIME_WAIT entry of an earlier connection on the same ports has no inode.
    if (fields.length >= 10 && inode > 0) return { uid: Number(fields[7]), inode };
  }
  return null;
}

function childrenOf(pid: number): number[] {
  try {
    const out: number[] = [];
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      for (const child of readFileSync(`/proc/${pid}/task/${task}/children`, 'latin1').split(' ')) if (child) out.push(Number(child));
    }
    return out;
  } catch {
    return [];
  }
}

function hasSocket(pid: number, link: string): boolean {
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return false;
  }
  // Newer descriptors are likelier to be a new connection's.
  for (let i = fds.length - 1; i >= 0; i--) {
    try {
      if (readlinkSync(`/proc/${pid}/fd/${fds[i]}`) === link) return true;
    } catch {
      // closed meanwhile
    }
  }
  return false;
}

/** The processes of this process's browser (the one launched with `marker`) and the sockets they hold. */
export class BrowserSockets {
  private pids: number[] = [];
  private readonly uid = process.getuid?.() ?? -1;

  constructor(readonly marker: string) {}

  /** True when /proc can tell who holds a loopback connection (Linux). */
  static available(): boolean {
    try {
      readFileSync('/proc/net/tcp', 'latin1');
      readdirSync(`/proc/${process.pid}/fd`);
      return true;
    } catch {
      return false;
    }
  }

  /** The browser's processes: the descendant of this process with the marker, and its descendants. */
  private find(): number[] {
    const browser: number[] = [];
    const queue = childrenOf(process.pid);
    const seen = new Set<number>();
    while (queue.length > 0) {
      const pid = queue.shift() as number;
      if (seen.has(pid)) continue;
      seen.add(pid);
      let cmdline = '';
      try {
        cmdline = readFileSync(`/proc/${pid}/cmdline`, 'latin1');
      } catch {
        continue;
      }
      if (cmdline.includes(this.marker)) browser.push(pid);
      else queue.push(...childrenOf(pid));
    }
    const out: number[] = [];
    while (browser.length > 0) {
      const pid = browser.shift() as number;
      out.push(pid);
      browser.push(...childrenOf(pid));
    }
    return out;
  }

  /** True when the client end (`client`) of a connection to `server` is a socket of the browser. */
  holds(client: { address: string; port: number }, server: { address: string; port: number }): boolean {
    let entry: SocketEntry | null;
    try {
      entry = findSocket(readFileSync('/proc/net/tcp', 'latin1'), client, server);
    } catch {
      return false;
    }
    if (!entry || entry.uid !== this.uid) return false;
    const link = `socket:[${entry.inode}]`;
    const hit = this.pids.findIndex((pid) => hasSocket(pid, link));
    if (hit >= 0) {
      // The holder (the network service) first next time.
      if (hit > 0) this.pids.unshift(...this.pids.splice(hit, 1));
      return true;
    }
    const known = new Set(this.pids);
    this.pids = this.find();
    const found = this.pids.find((pid) => !known.has(pid) && hasSocket(pid, link));
    if (found === undefined) return false;
    this.pids.unshift(...this.pids.splice(this.pids.indexOf(found), 1));
    return true;
  }
}
