import { BlockList, isIPv4, isIPv6 } from 'node:net';

/**
 * Address ranges an agent must not reach through an OpenAPI source unless the operator allows
 * private networks: everything that is not the public Internet. Link-local holds the cloud
 * metadata endpoint (169.254.169.254, fd00:ec2::254), the classic SSRF target.
 */
const IPV4_RANGES: ReadonlyArray<readonly [string, number]> = [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
];

const IPV6_RANGES: ReadonlyArray<readonly [string, number]> = [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['::', 96], // IPv4-compatible (deprecated)
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local (fd00:ec2::254 is AWS metadata over IPv6)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
];

const blockList = new BlockList();
for (const [network, prefix] of IPV4_RANGES) blockList.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of IPV6_RANGES) blockList.addSubnet(network, prefix, 'ipv6');

/**
 * True when `address` (an IPv4 or IPv6 literal, brackets allowed) is not a public unicast address.
 * IPv4-mapped (`::ffff:a.b.c.d`), NAT64 (`64:ff9b::/96`) and 6to4 (`2002::/16`) addresses are
 * judged by the IPv4 address they carry. Anything that is not an IP literal counts as forbidden:
 * the caller must resolve names first.
 */
export function isForbiddenAddress(address: string): boolean {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (isIPv4(bare)) return blockList.check(bare, 'ipv4');
  if (!isIPv6(bare)) return true;
  // BlockList matches IPv4-mapped addresses against the IPv4 rules by itself.
  if (blockList.check(bare, 'ipv6')) return true;
  const embedded = embeddedIPv4(bare);
  return embedded !== undefined && blockList.check(embedded, 'ipv4');
}

/** The IPv4 address carried by a NAT64 or 6to4 address, if `address` is one. */
function embeddedIPv4(address: string): string | undefined {
  const groups = expandIPv6(address);
  if (!groups) return undefined;
  if (groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((g) => g === 0)) {
    return toIPv4(groups[6] ?? 0, groups[7] ?? 0);
  }
  if (groups[0] === 0x2002) return toIPv4(groups[1] ?? 0, groups[2] ?? 0);
  return undefined;
}

function toIPv4(high: number, low: number): string {
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

/** The eight 16-bit groups of an IPv6 literal (a dotted IPv4 tail and a zone id allowed). */
function expandIPv6(address: string): number[] | undefined {
  let text = address.split('%')[0] ?? '';
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1]) {
    const [a = 0, b = 0, c = 0, d = 0] = dotted[1].split('.').map(Number);
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) => (part ? part.split(':').map((g) => Number.parseInt(g, 16)) : []);
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  const missing = 8 - left.length - right.length;
  if (missing < 0 || (tail === undefined && missing !== 0)) return undefined;
  const groups = [...left, ...new Array<number>(missing).fill(0), ...right];
  return groups.some((g) => Number.isNaN(g)) ? undefined : groups;
}
