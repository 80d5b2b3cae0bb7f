import type { ProxySettings } from './http-transport.js';

const DEFAULT_PORTS: Readonly<Record<string, number>> = { 'http:': 80, 'https:': 443 };

/**
 * The proxy that requests to `url` go through, in words for messages: its scheme, host and port
 * (never its user or password) and the variable it is read from, as `http://proxy.corp:3128
 * (HTTPS_PROXY)`; undefined when they go direct. The choice is the dispatcher's
 * (`createDispatcher`: an `https:` target takes the HTTPS proxy, an `http:` one the HTTP proxy,
 * `NO_PROXY` hosts none), matched here as undici's `EnvHttpProxyAgent` matches `NO_PROXY`.
 */
export function proxyInWords(url: URL, settings: ProxySettings | undefined): string | undefined {
  const https = url.protocol === 'https:';
  const proxy = https ? settings?.httpsProxy : settings?.httpProxy;
  if (proxy === undefined || proxy === '' || bypassed(url, settings?.noProxy ?? '')) return undefined;
  let shown: string;
  try {
    const parsed = new URL(proxy);
    shown = `${parsed.protocol}//${parsed.host}`;
  } catch {
    shown = 'the proxy';
  }
  return `${shown} (${https ? 'HTTPS_PROXY' : 'HTTP_PROXY'})`;
}

/** Whether `NO_PROXY` sends `url` direct: `*`, its host, a domain it is under, each with an optional port. */
function bypassed(url: URL, noProxy: string): boolean {
  if (noProxy === '*') return true;
  const hostname = url.host.replace(/:\d*$/, '').toLowerCase();
  const port = Number.parseInt(url.port, 10) || DEFAULT_PORTS[url.protocol] || 0;
  for (const entry of noProxy.split(/[,\s]/)) {
    if (entry === '') continue;
    const parsed = /^(.+):(\d+)$/.exec(entry);
    const host = (parsed?.[1] ?? entry).replace(/^\*?\./, '').toLowerCase();
    const entryPort = parsed?.[2] === undefined ? 0 : Number.parseInt(parsed[2], 10);
    if (entryPort !== 0 && entryPort !== port) continue;
    if (hostname === host || hostname.endsWith(`.${host}`)) return true;
  }
  return false;
}
