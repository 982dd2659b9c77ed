/*
 * The hosts a sandboxed server may reach (`sandbox.network.allow`) and the hosts a bound secret is
 * given to (`sandbox.secrets.<ENV>.hosts`) are written as `host[:port]`, with `*.example.com` for
 * every subdomain (not the domain itself) and `*` for any host. A pattern that could never match a
 * real request (`exa*mple.com`, `http://x`, port 99999) is refused at config load, naming it.
 */

/** One parsed pattern: a host (exact, `*.suffix`, or `*`) and a port (any when absent). */
export interface HostPattern {
  /** Lowercase; `*` any host; starts with `*.` for subdomains. */
  host: string;
  port?: number;
}

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/** Why `text` is not a usable host pattern, or undefined when it is. */
export function hostPatternProblem(text: string): string | undefined {
  const parsed = parseHostPattern(text);
  return typeof parsed === 'string' ? parsed : undefined;
}

/** `text` as a pattern, or the reason it cannot match anything. */
export function parseHostPattern(text: string): HostPattern | string {
  const trimmed = text.trim().toLowerCase();
  if (trimmed === '') return 'is empty';
  if (/^[a-z][a-z0-9+.-]*:\/\//.test(trimmed))
    return 'is a URL; write the host (and port) only, e.g. "api.example.com:443"';
  // `[::1]:8080` — an IPv6 literal in brackets.
  const bracketed = /^\[([0-9a-f:.]+)\](?::(.*))?$/.exec(trimmed);
  let host: string;
  let portText: string | undefined;
  if (bracketed) {
    host = bracketed[1] as string;
    portText = bracketed[2];
  } else {
    const colon = trimmed.lastIndexOf(':');
    if (colon !== -1 && trimmed.indexOf(':') !== colon)
      return 'has several ":"; write an IPv6 address in brackets, e.g. "[::1]:8080"';
    host = colon === -1 ? trimmed : trimmed.slice(0, colon);
    portText = colon === -1 ? undefined : trimmed.slice(colon + 1);
  }
  let port: number | undefined;
  if (portText !== undefined && portText !== '*') {
    if (!/^\d{1,5}$/.test(portText) || Number(portText) < 1 || Number(portText) > 65535) {
      return `has port "${portText}", which no connection can use (1-65535, or "*")`;
    }
    port = Number(portText);
  }
  if (!bracketed && host !== '*') {
    const name = host.startsWith('*.') ? host.slice(2) : host;
    if (name.includes('*'))
      return 'has "*" inside a name; only a leading "*." (every subdomain) or "*" alone can match';
    const ip = IPV4.exec(name);
    if (ip?.slice(1).some((part) => Number(part) > 255)) return 'is not a valid IPv4 address';
    if (!name.split('.').every((label) => LABEL.test(label))) return 'is not a valid host name';
  }
  return port === undefined ? { host } : { host, port };
}

/** Whether `host:port` is matched by `pattern`. */
export function hostMatches(pattern: HostPattern, host: string, port: number): boolean {
  if (pattern.port !== undefined && pattern.port !== port) return false;
  const name = host
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
  if (pattern.host === '*') return true;
  if (pattern.host.startsWith('*.')) return name.endsWith(pattern.host.slice(1));
  return name === pattern.host;
}

/** Whether any of `patterns` matches `host:port`. */
export function anyHostMatches(patterns: readonly HostPattern[], host: string, port: number): boolean {
  return patterns.some((pattern) => hostMatches(pattern, host, port));
}

/** Parses patterns known to be valid (checked at config load); an invalid one throws. */
export function parseHostPatterns(texts: readonly string[]): HostPattern[] {
  return texts.map((text) => {
    const parsed = parseHostPattern(text);
    if (typeof parsed === 'string') throw new Error(`host pattern "${text}" ${parsed}`);
    return parsed;
  });
}
