import { BlockList, isIP } from 'node:net';

/**
 * A token's allow_ips: one IP or CIDR per line. A list whose lines are all invalid admits no one,
 * rather than everyone: a typo must not open a restricted token.
 */
export class IpAllowList {
  private readonly list = new BlockList();

  constructor(text: string) {
    for (const rawLine of text.split(/[\n,]/)) {
      const line = rawLine.trim();
      if (line === '') continue;
      const [address = '', prefix] = line.split('/');
      const ip = normaliseIp(address.trim());
      const family = isIP(ip);
      if (family === 0) continue;
      const type = family === 4 ? 'ipv4' : 'ipv6';
      if (prefix === undefined) {
        this.list.addAddress(ip, type);
        continue;
      }
      const bits = Number(prefix);
      if (!Number.isInteger(bits) || bits < 0 || bits > (family === 4 ? 32 : 128)) continue;
      this.list.addSubnet(ip, bits, type);
    }
  }

  allows(clientIp: string): boolean {
    const ip = normaliseIp(clientIp);
    const family = isIP(ip);
    if (family === 0) return false;
    return this.list.check(ip, family === 4 ? 'ipv4' : 'ipv6');
  }
}

/** IPv4 clients of a dual-stack listener show up as ::ffff:a.b.c.d. */
export const normaliseIp = (ip: string): string => (ip.startsWith('::ffff:') && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip);

/** undefined when the text names no restriction at all. */
export const parseAllowIps = (text: string): IpAllowList | undefined => (text.trim() === '' ? undefined : new IpAllowList(text));
